// One power-up of the emulated Pico: an RP2040 (rp2040js) with the boot ROM, the flash file,
// the USB serial line, the I2C devices, PIO on the emulated clock, the watchdog's reset and
// the core's faults (faults.mjs).
// A watchdog reset (or machine.reset()) ends this Board; the harness then starts a new one
// on the same flash and clock, as the chip reboots with its flash kept.
import { RP2040 } from 'rp2040js';
import { FaultModel } from './faults.mjs';
import { FLASH_BASE, FlashTraps, PowerCuts } from './flash.mjs';
import { modelUniqueId } from './flash_id.mjs';
import { DeviceWire, I2CTargets, IrqLine, SoftLines } from './i2c_bus.mjs';
import { PioClock } from './leds.mjs';
import { SerialLine } from './usb_serial.mjs';

const WATCHDOG_BASE = 0x40058;
const RESETS_BASE = 0x4000c;
const RESET_I2C = [1 << 3, 1 << 4]; // RESETS bits of I2C0 and I2C1
// The I2C registers a block comes out of reset with (the callbacks are the harness's).
const I2C_STATE = ['state', 'busy', 'stop', 'pendingRestart', 'firstByte', 'enable',
  'rxThreshold', 'txThreshold', 'control', 'ssClockHighPeriod', 'ssClockLowPeriod',
  'fsClockHighPeriod', 'fsClockLowPeriod', 'targetAddress', 'slaveAddress', 'abortSource',
  'intRaw', 'intEnable', 'spikelen'];

/**
 * Resetting an I2C block through RESETS puts its registers back to their reset values, as on
 * the chip (rp2040js keeps a peripheral's state through RESETS). pico-sdk's i2c_deinit() does
 * this; CircuitPython runs it when code.py ends, and its next busio.I2C refuses a block still
 * enabled ("I2C peripheral in use").
 */
function modelI2CResets(mcu) {
  const resets = mcu.peripherals[RESETS_BASE];
  const write = resets.writeUint32.bind(resets);
  resets.writeUint32 = (offset, value) => {
    if (offset === 0) {
      RESET_I2C.forEach((bit, i) => {
        if (value & bit && !(resets.reset & bit)) {
          const i2c = mcu.i2c[i];
          const fresh = new i2c.constructor(mcu, i2c.name, i2c.irq);
          for (const key of I2C_STATE) {
            i2c[key] = fresh[key];
          }
          i2c.rxFIFO.reset();
          i2c.txFIFO.reset();
          i2c.checkInterrupts();
        }
      });
    }
    write(offset, value);
  };
}
const REASON_TIMER = 1;
const REASON_FORCE = 2;

export class Board {
  /**
   * opts: bootrom (Uint32Array), flash (FlashFile), uniqueId (the flash chip's 8 bytes), startNanos, i2c {id, sda, scl} or null,
   * irqPin (the MPR121s' IRQ line) or null,
   * wireSpec (MANCALA_SIM_BUS) or null, resetReason (0 = power-on), scratch (Uint32Array),
   * onSerial(bytes), onTaken(bytes), onFrame(pin, bytes, strayBits, tNanos), log(text),
   * cuts (PowerCuts, or none), onHardFault(line) (each HardFault the core takes).
   */
  constructor(opts) {
    const mcu = new RP2040();
    const clock = mcu.clock; // its own SimulationClock, carried on from the last power-up
    clock.nanosCounter = opts.startNanos;
    mcu.logger = { debug() {}, info() {}, warn() {}, error: (tag, msg) => opts.log(`${tag}: ${msg}`) };
    mcu.loadBootrom(opts.bootrom);
    opts.flash.loadInto(mcu);
    modelUniqueId(mcu, opts.uniqueId);
    modelI2CResets(mcu);
    this.faults = new FaultModel(mcu, opts.onHardFault);
    this.mcu = mcu;
    this.clock = clock;
    this.halted = null; // why this power-up ended: {reason} of a reset
    this.traps = new FlashTraps(mcu, opts.flash, opts.log, (ns) => this.stall(ns),
      opts.cuts || new PowerCuts(null), (cut, what) => this._powerCut(what));
    this.serial = new SerialLine(mcu, opts.onSerial, opts.onTaken);
    this.pio = new PioClock(mcu, opts.onFrame);
    const wd = mcu.peripherals[WATCHDOG_BASE];
    wd.reason = opts.resetReason || 0;
    if (opts.scratch) {
      wd.scratchData.set(opts.scratch);
    }
    wd.onWatchdogTrigger = () => this._reset(wd);
    this.wire = null;
    if (opts.wireSpec && opts.i2c) {
      this.wire = opts.wire || new DeviceWire(opts.wireSpec, clock);
      this.wire.clock = clock;
      this.i2cTargets = new I2CTargets(mcu.i2c[opts.i2c.id], this.wire, clock,
        [mcu.gpio[opts.i2c.sda], mcu.gpio[opts.i2c.scl]]);
      this.lines = new SoftLines(mcu, opts.i2c.sda, opts.i2c.scl, this.wire);
      if (opts.irqPin !== null && opts.irqPin !== undefined) {
        this.irq = new IrqLine(mcu, opts.irqPin, this.wire);
      }
    }
    mcu.core.PC = FLASH_BASE; // boot2 at the start of flash, as the boot ROM would jump to it
  }

  /** The watchdog is counting down: it will reset the chip unless fed. */
  get watchdogRunning() {
    const wd = this.mcu.peripherals[WATCHDOG_BASE];
    return wd.enable && wd.tickEnable;
  }

  /**
   * Let ns of emulated time pass with the CPU stopped (a flash erase or program): timers,
   * DMA and PIO go on, so an LED frame on the wire is not torn.
   */
  stall(ns) {
    const { clock, pio } = this;
    const end = clock.nanos + ns;
    while (clock.nanos < end) {
      let dt = end - clock.nanos;
      if (pio.working) {
        dt = Math.max(0, Math.min(dt, pio.nextAt - clock.nanos));
      } else if (clock.nextAlarm) {
        dt = Math.min(dt, clock.nanosToNextAlarm); // a DMA transfer may start the PIO
      }
      clock.tick(dt);
      if (pio.running && clock.nanos >= pio.nextAt) {
        pio.advance(clock.nanos);
      }
    }
  }

  _powerCut(what) {
    // The power goes: this power-up ends where it is; RAM and the watchdog's scratch
    // registers are lost, the flash keeps what the cut left in it.
    if (!this.halted) {
      this.halted = { reason: 'power cut', what, resetReason: 0, scratch: null };
    }
  }

  _reset(wd) {
    // The chip resets: this power-up stops at once (the watchdog would fire again and again).
    wd.timer.enable = false;
    wd.alarm.enable = false;
    if (!this.halted) {
      this.halted = {
        reason: wd.reason === REASON_FORCE ? 'machine.reset' : 'watchdog',
        resetReason: wd.reason || REASON_TIMER,
        scratch: Uint32Array.from(wd.scratchData),
      };
    }
  }
}
