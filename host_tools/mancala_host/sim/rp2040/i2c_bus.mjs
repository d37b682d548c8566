// The board's I2C bus on the emulated Pico: the MPR121 register models answer on the I2C
// controller the profile names, through rp2040js's I2C target hooks.
//
// The models are the virtual board's own (fakes/mpr121_model.py), in the device process
// (sim/devices.py) on two pipes, exactly as the unix target reaches them. Each transfer is
// one synchronous request while the emulated chip stands still, with the emulated time sent
// first (the 'c' request), so the models' filter and debounce timing runs on the emulated
// clock and is deterministic.
//
// rp2040js moves a byte in no time; here each takes its 9 SCL periods (8 bits and the
// acknowledge; a START or STOP one), at the SCL period the driver set (IC_FS_SCL_HCNT +
// LCNT), so a transfer costs the emulated CPU what it costs a Pico.
//
// Two things rp2040js's controller gets wrong, fixed here:
// - After a NAK it aborts the transfer but never raises TX_EMPTY, which pico-sdk's write
//   waits for, so the write timed out (OSError 110) where a Pico fails at once with EIO.
//   The controller flushes its FIFO on an abort, so TX_EMPTY is raised, as on the chip.
// - machine.I2C.scan() on rp2 probes each address with a zero-length write, which the port
//   bit-bangs on the SDA and SCL pins (the controller cannot send one). rp2040js has no bus
//   lines: a pin's input does not follow what is driven. SoftLines models the two
//   open-drain lines with their pull-ups and answers the address phase for the chips
//   present, so a scan finds them.
import fs from 'node:fs';

const EIO = 5;
const R_TX_EMPTY = 1 << 4;
const PREFETCH = 32; // register bytes fetched per read request (the models have no read side effects)

/** Synchronous requests to the device process (request/answer format: sim/devices.py). */
export class DeviceWire {
  constructor(spec, clock) {
    const [rx, tx] = spec.split(',').map((s) => parseInt(s, 10));
    this.rx = rx;
    this.tx = tx;
    this.clock = clock;
    this.broken = false;
  }

  _readExactly(n) {
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      let k;
      try {
        k = fs.readSync(this.rx, buf, got, n - got, null);
      } catch (e) {
        if (e.code === 'EAGAIN') {
          continue;
        }
        throw e;
      }
      if (k === 0) {
        throw new Error('the device process has ended');
      }
      got += k;
    }
    return buf;
  }

  /** One request; returns {status, data}. A device process that is gone answers EIO. */
  call(op, addr, reg, payload, want) {
    if (this.broken) {
      return { status: EIO, data: null };
    }
    const t = BigInt(Math.floor(this.clock.nanos / 1000));
    const head = Buffer.alloc(12 + 4 + (payload ? payload.length : 0));
    head.write('c', 0, 'latin1');
    head[3] = 8;
    head.writeBigUInt64LE(t, 4);
    head[12] = op.charCodeAt(0);
    head[13] = addr;
    head[14] = reg;
    head[15] = payload ? payload.length : want;
    if (payload) {
      Buffer.from(payload).copy(head, 16);
    }
    try {
      fs.writeSync(this.tx, head);
      const status = this._readExactly(1)[0];
      let data = null;
      if (status === 0 && (op === 'r' || op === 's' || op === 'i')) {
        data = this._readExactly(op === 's' ? 8 : want);
      }
      return { status, data };
    } catch (e) {
      this.broken = true;
      process.stderr.write(`emulated Pico: the I2C device process is gone (${e.message}); no chip answers now\n`);
      return { status: EIO, data: null };
    }
  }

  /** The chips' shared IRQ line: true while it is low. */
  irqLow() {
    const { status, data } = this.call('i', 0, 0, null, 1);
    return status === 0 && data[0] === 1;
  }

  present() {
    const { status, data } = this.call('s', 0, 0, null, 0);
    return status === 0 ? new Set([...data].filter((a) => a !== 0)) : new Set();
  }
}

const FUNC_I2C = 3; // GPIO function select of the I2C controllers

/**
 * The I2C controller's target side: transfers to the models, in bus time. The chips sit on
 * the profile's SDA and SCL pins: while those are not switched to the I2C function, the
 * controller's transfers reach nothing (a NAK), as on a board wired that way.
 */
export class I2CTargets {
  constructor(i2c, wire, clock, pins) {
    this.i2c = i2c;
    this.wire = wire;
    this.pins = pins; // [sda, scl] GPIOPins
    this.then = null; // the completion waiting for its bus time (the controller does one thing at a time)
    this.alarm = clock.createAlarm(() => {
      const done = this.then;
      this.then = null;
      done();
    });
    this.addr = null;
    this.mode = null;
    this.pointer = new Map(); // register pointer per address (the MPR121 auto-increments)
    this.written = null;      // [register, data...] of the write in progress
    this.readBuf = null;
    this.readPos = 0;
    i2c.onStart = () => {
      this._endTransfer();
      this._after(1, () => i2c.completeStart());
    };
    i2c.onConnect = (address, mode) => this._connect(address, mode);
    i2c.onWriteByte = (value) => {
      this.written.push(value);
      this._after(9, () => i2c.completeWrite(true));
    };
    i2c.onReadByte = () => {
      const value = this._nextByte();
      this._after(9, () => i2c.completeRead(value));
    };
    i2c.onStop = () => {
      this._endTransfer();
      this._after(1, () => i2c.completeStop());
    };
  }

  /** Run done after `bits` SCL periods of emulated time. */
  _after(bits, done) {
    const cycles = (this.i2c.sclLowPeriod + this.i2c.sclHighPeriod) || 313; // 400 kHz
    this.then = done;
    this.alarm.schedule(bits * cycles * 8);
  }

  _nack() {
    this.addr = null;
    this._after(9, () => {
      this.i2c.completeConnect(false);
      // The chip flushes its TX FIFO on an abort, so TX_EMPTY is up (pico-sdk waits for it).
      this.i2c.setInterrupts(R_TX_EMPTY);
    });
  }

  _connect(address, mode) {
    if (this.pins.some((pin) => pin.functionSelect !== FUNC_I2C)) {
      this._nack();
      return;
    }
    const reg = this.pointer.get(address) || 0;
    if (mode === 1) { // read: fetch ahead from the register pointer
      const n = Math.max(1, Math.min(PREFETCH, 0x80 - reg));
      const { status, data } = this.wire.call('r', address, reg, null, n);
      if (status !== 0) {
        this._nack();
        return;
      }
      this.readBuf = data;
      this.readPos = 0;
    } else {
      // An empty write checks that the chip is there (and leaves its pointer as it is).
      const { status } = this.wire.call('w', address, reg, new Uint8Array(0), 0);
      if (status !== 0) {
        this._nack();
        return;
      }
      this.written = [];
    }
    this.addr = address;
    this.mode = mode;
    this._after(9, () => this.i2c.completeConnect(true));
  }

  _nextByte() {
    const reg = this.pointer.get(this.addr) || 0;
    if (this.readPos >= this.readBuf.length) {
      const n = Math.max(1, Math.min(PREFETCH, 0x80 - reg));
      const { status, data } = this.wire.call('r', this.addr, reg, null, n);
      this.readBuf = status === 0 ? data : Buffer.from([0xff]);
      this.readPos = 0;
    }
    this.pointer.set(this.addr, reg + 1);
    return this.readBuf[this.readPos++];
  }

  _endTransfer() {
    const addr = this.addr;
    if (addr !== null && this.mode === 0 && this.written && this.written.length) {
      const reg = this.written[0];
      const data = this.written.slice(1);
      if (data.length) {
        const { status } = this.wire.call('w', addr, reg, Uint8Array.from(data), 0);
        if (status !== 0) {
          process.stderr.write(`emulated Pico: chip 0x${addr.toString(16)} refused a write to register 0x${reg.toString(16)}\n`);
        }
      }
      this.pointer.set(addr, reg + data.length);
    }
    this.addr = null;
    this.written = null;
    this.readBuf = null;
  }
}

/**
 * SDA and SCL as open-drain lines with pull-ups, for the bit-banged address probes of
 * machine.I2C.scan(). A line is low when the Pico drives it low or a chip pulls it low.
 * Chips ACK their address; data bytes of a bit-banged write are ACKed, reads get 0xFF.
 */
export class SoftLines {
  constructor(mcu, sdaPin, sclPin, wire) {
    this.sda = mcu.gpio[sdaPin];
    this.scl = mcu.gpio[sclPin];
    this.wire = wire;
    this.sdaLevel = true;
    this.sclLevel = true;
    this.deviceSdaLow = false;
    this.state = 'idle'; // idle | addr | ack | data | read
    this.bits = 0;
    this.nbits = 0;
    this.sda.addListener(() => this._update());
    this.scl.addListener(() => this._update());
    this.sda.setInputValue(true);
    this.scl.setInputValue(true);
  }

  static drivenLow(pin) {
    return pin.value === 0; // GPIOPinState.Low: output enabled, driving 0
  }

  _update() {
    const scl = !SoftLines.drivenLow(this.scl);
    let sda = !(SoftLines.drivenLow(this.sda) || this.deviceSdaLow);
    const sclRose = scl && !this.sclLevel;
    const sclFell = !scl && this.sclLevel;
    if (scl && this.sclLevel && sda !== this.sdaLevel) { // SDA moved while SCL high
      if (!sda) {
        this.state = 'addr'; // START (or repeated START)
        this.bits = 0;
        this.nbits = 0;
      } else {
        this.state = 'idle'; // STOP
      }
      this.deviceSdaLow = false;
    } else if (sclRose && (this.state === 'addr' || this.state === 'data')) {
      this.bits = ((this.bits << 1) | (sda ? 1 : 0)) & 0xff;
      this.nbits++;
    } else if (sclFell) {
      if (this.state === 'addr' && this.nbits === 8) {
        const address = this.bits >> 1;
        const there = this.wire.present().has(address);
        this.deviceSdaLow = there;
        this.state = there ? ((this.bits & 1) ? 'ackread' : 'ack') : 'idle';
      } else if (this.state === 'data' && this.nbits === 8) {
        this.deviceSdaLow = true;
        this.state = 'ack';
      } else if (this.state === 'ack' || this.state === 'ackread') {
        this.deviceSdaLow = false; // ACK clock done
        this.state = this.state === 'ack' ? 'data' : 'read';
        this.bits = 0;
        this.nbits = 0;
      }
    }
    sda = !(SoftLines.drivenLow(this.sda) || this.deviceSdaLow);
    this.sclLevel = scl;
    this.sdaLevel = sda;
    if (this.sda.rawInputValue !== sda) {
      this.sda.setInputValue(sda);
    }
    if (this.scl.rawInputValue !== scl) {
      this.scl.setInputValue(scl);
    }
  }
}

/**
 * The MPR121s' IRQ outputs on one GPIO (open drain, active low, pulled up): the line follows
 * the models, looked at every IRQ_POLL_NS of emulated time (the chips sample on their own).
 */
export const IRQ_POLL_NS = 1e6;

export class IrqLine {
  constructor(mcu, pin, wire) {
    this.pin = mcu.gpio[pin];
    this.wire = wire;
    this.pin.setInputValue(true);
    this.alarm = mcu.clock.createAlarm(() => {
      const high = !this.wire.irqLow();
      if (this.pin.rawInputValue !== high) {
        this.pin.setInputValue(high);
      }
      this.alarm.schedule(IRQ_POLL_NS);
    });
    this.alarm.schedule(IRQ_POLL_NS);
  }
}
