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

function checked(access, width, what) {
  const mask = width - 1;
  return (address, value) => {
    if (address & mask) {
      throw new Fault(`unaligned ${width * 8}-bit ${what}`, address);
    }
    if (!MAPPED[address >>> 28]) {
      throw new Fault(what, address, 'where no device answers');
    }
    return access(address, value);
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
    core.readUint32 = checked((a) => mcu.readUint32(a), 4, 'read');
    core.readUint16 = checked((a) => mcu.readUint16(a), 2, 'read');
    core.readUint8 = checked((a) => mcu.readUint8(a), 1, 'read');
    core.writeUint32 = checked((a, v) => mcu.writeUint32(a, v), 4, 'write');
    core.writeUint16 = checked((a, v) => mcu.writeUint16(a, v), 2, 'write');
    core.writeUint8 = checked((a, v) => mcu.writeUint8(a, v), 1, 'write');
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
