// Faults as a Cortex-M0+ takes them. rp2040js reads and writes any address the program asks
// for (an unaligned word, a region with nothing behind it) and runs BKPT as a no-op, where the
// chip faults: a firmware bug then runs on in the emulator and locks up a Pico. Here:
//
// - a load or store the core makes (not DMA's) to an unaligned address (a word not on 4, a
//   halfword not on 2), or into a region of the RP2040's address map with no device behind
//   it, does not happen, and the core takes a HardFault with the faulting instruction's PC
//   stacked, as ARMv6-M does;
// - BKPT or UDF with no debugger attached is a HardFault too (pico-sdk's default HardFault
//   handler is a BKPT);
// - a fault while the core is in the HardFault or NMI handler (or while it stacks for one)
//   locks the core up: it executes nothing more, while the timers, DMA, PIO and the watchdog
//   go on. Only the watchdog brings it back, as on a Pico. (MicroPython keeps pico-sdk's
//   HardFault handler, a BKPT, so there a fault ends in a lock-up; CircuitPython's handler
//   resets the chip into its safe mode instead.)
const EXC_NMI = 2;
const EXC_HARDFAULT = 3;

// The RP2040's address map by its top nibble: ROM 0x0, XIP 0x1, SRAM 0x2, APB 0x4, AHB 0x5,
// SIO 0xd, the Cortex-M0+ PPB 0xe. Nothing answers in the others: a bus fault.
const MAPPED = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0];

const hex = (n) => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;

/** Thrown out of an instruction the chip would not complete. */
export class Fault extends Error {
  constructor(what, address, where) {
    super(what);
    this.what = what;
    this.address = address === undefined ? null : address >>> 0;
    this.where = where || '';
  }

  describe(pc) {
    const at = this.address === null ? '' : ` of ${hex(this.address)}`;
    const where = this.where ? ` ${this.where}` : '';
    return `${this.what}${at}${where}, at PC ${hex(pc)}`;
  }
}

const RAM_BASE = 0x20000000;
const FLASH_BASE = 0x10000000;

const unaligned = (width, what, address) =>
  new Fault(`unaligned ${width * 8}-bit ${what}`, address);
const unmapped = (what, address) => new Fault(what, address, 'where no device answers');

/**
 * The core's loads and stores, checked as the chip checks them. SRAM, and reads of the flash
 * at its XIP address, are read and written here directly: rp2040js does the same for them
 * (its writeUint32 looks for a peripheral first, which SRAM never is), and these are nearly
 * all of a program's accesses, its instruction fetches included. Everything else goes to
 * rp2040js. One function per access, each calling one method, so that the engine can inline
 * them.
 */
function checkedAccess(mcu) {
  const sram = mcu.sramView;
  const ramSize = mcu.sram.length;
  const flash = mcu.flashView;
  const flashSize = mcu.flash.length;
  return {
    readUint32(address) {
      if (address & 3) {
        throw unaligned(4, 'read', address);
      }
      const r = address - RAM_BASE;
      if (r >= 0 && r < ramSize) {
        return sram.getUint32(r, true);
      }
      const f = address - FLASH_BASE;
      if (f >= 0 && f < flashSize) {
        return flash.getUint32(f, true);
      }
      if (!MAPPED[address >>> 28]) {
        throw unmapped('read', address);
      }
      return mcu.readUint32(address);
    },
    readUint16(address) {
      if (address & 1) {
        throw unaligned(2, 'read', address);
      }
      const f = address - FLASH_BASE;
      if (f >= 0 && f < flashSize) {
        return flash.getUint16(f, true);
      }
      const r = address - RAM_BASE;
      if (r >= 0 && r < ramSize) {
        return sram.getUint16(r, true);
      }
      if (!MAPPED[address >>> 28]) {
        throw unmapped('read', address);
      }
      return mcu.readUint16(address);
    },
    readUint8(address) {
      const r = address - RAM_BASE;
      if (r >= 0 && r < ramSize) {
        return sram.getUint8(r);
      }
      if (!MAPPED[address >>> 28]) {
        throw unmapped('read', address);
      }
      return mcu.readUint8(address);
    },
    writeUint32(address, value) {
      if (address & 3) {
        throw unaligned(4, 'write', address);
      }
      const r = address - RAM_BASE;
      if (r >= 0 && r < ramSize) {
        sram.setUint32(r, value, true);
        return;
      }
      if (!MAPPED[address >>> 28]) {
        throw unmapped('write', address);
      }
      mcu.writeUint32(address, value);
    },
    writeUint16(address, value) {
      if (address & 1) {
        throw unaligned(2, 'write', address);
      }
      if (!MAPPED[address >>> 28]) {
        throw unmapped('write', address);
      }
      mcu.writeUint16(address, value);
    },
    writeUint8(address, value) {
      if (!MAPPED[address >>> 28]) {
        throw unmapped('write', address);
      }
      mcu.writeUint8(address, value);
    },
  };
}

/**
 * Makes mcu's core fault as the chip does. Returns the fault model: the harness calls
 * take(fault, pc) when an instruction throws a Fault, and reads lockedUp.
 */
export class FaultModel {
  constructor(mcu, onHardFault) {
    const core = mcu.core;
    this.core = core;
    this.onHardFault = onHardFault || (() => {}); // (line): each HardFault the core takes
    this.lockedUp = null; // {fault, pc}: the first fault, once the core has locked up
    this.first = null;    // {fault, pc} of the fault that took the HardFault
    Object.assign(core, checkedAccess(mcu));
    mcu.onBreak = (code) => {
      throw new Fault(`BKPT or UDF #${code} with no debugger attached`);
    };
  }

  /** The instruction at pc threw fault: take the HardFault, or lock up. */
  take(fault, pc) {
    const { core } = this;
    const ipsr = core.IPSR;
    if (ipsr === EXC_HARDFAULT || ipsr === EXC_NMI) {
      this._lockUp(fault, pc);
      return;
    }
    if (!this.first) {
      this.first = { fault, pc };
    }
    this.onHardFault(`HardFault: ${fault.describe(pc)}`);
    core.PC = pc; // the faulting instruction's address is the one stacked
    try {
      core.exceptionEntry(EXC_HARDFAULT);
    } catch (e) {
      if (!(e instanceof Fault)) {
        throw e;
      }
      this._lockUp(e, pc); // the stacking itself faulted
    }
  }

  _lockUp(fault, pc) {
    const cause = this.first || { fault, pc };
    this.lockedUp = cause;
    this.core.waiting = false;
  }

  /** One line: the fault that locked the core up, its address and PC. */
  describe() {
    const { fault, pc } = this.lockedUp;
    return `HardFault: ${fault.describe(pc)}; the core locked up`;
  }

  /** The lock-up's cause was a HardFault already reported (onHardFault). */
  get reported() {
    return this.first !== null;
  }
}
