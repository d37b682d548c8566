// PIO on the emulated clock, and the WS2812 frames read back from the data pins.
//
// rp2040js runs PIO from host timers (setTimeout), so a driver that waits for its FIFO or
// DMA sees a PIO as fast as the host, not 8 MHz. Here PIO is stepped from the emulated clock
// instead: each enabled state machine runs one PIO cycle per clock divider period (125 MHz /
// CLKDIV), counting an instruction's delay cycles. A state machine that is switched off is
// never stepped (one stepped before its setup was done looped at PC 0), and one stalled on
// an empty TX FIFO costs nothing until data arrives.
//
// The catch-up runs on a fixed grid of emulated time, and a state machine that was stalled
// resumes at the moment its FIFO was written, so PIO timing does not depend on how the
// harness slices its work (host speed): the same program gives the same edges.
//
// Frames are decoded from the data pins' edges, timed in PIO cycles, as a WS2812 reads them:
// a high pulse longer than 625 ns is a 1 bit, shorter a 0 bit; the line low for 50 us or
// more ends the frame (the WS2812 latch). So a wrong bit timing in the driver shows as a
// wrong frame here.
const WAIT_TX_FIFO = 3; // rp2040js WaitType.txFIFO
const WAIT_OUT = 5;     // rp2040js WaitType.Out
const SYS_NS = 8;       // one 125 MHz system clock cycle
const ONE_MIN_NS = 625;
const LATCH_NS = 50000;
export const SLICE_NS = 1000;    // PIO catch-up granularity while a state machine has work
export const IDLE_NS = 10000;    // ... and while none has (only to notice new work)

function stalled(sm) {
  return sm.waiting && (sm.waitType === WAIT_TX_FIFO || sm.waitType === WAIT_OUT) &&
    sm.txFIFO.empty;
}

class PinDecoder {
  constructor(pin, emit) {
    this.pin = pin;
    this.emit = emit;
    this.level = 0;
    this.rise = 0;
    this.lastFall = -Infinity;
    this.bytes = [];
    this.byte = 0;
    this.nbits = 0;
  }

  edge(level, t) {
    if (level === this.level) {
      return;
    }
    this.level = level;
    if (level) {
      if (t - this.lastFall >= LATCH_NS) {
        this.flush();
      }
      this.rise = t;
    } else {
      this.byte = (this.byte << 1) | (t - this.rise > ONE_MIN_NS ? 1 : 0);
      if (++this.nbits === 8) {
        this.bytes.push(this.byte);
        this.byte = 0;
        this.nbits = 0;
      }
      this.lastFall = t;
    }
  }

  /** End the frame if the line has been low for the latch time by t. */
  idle(t) {
    if (!this.level && (this.bytes.length || this.nbits) && t - this.lastFall >= LATCH_NS) {
      this.flush();
    }
  }

  flush() {
    if (this.bytes.length || this.nbits) {
      this.emit(this.pin, Uint8Array.from(this.bytes), this.nbits, this.lastFall);
    }
    this.bytes = [];
    this.byte = 0;
    this.nbits = 0;
  }
}

export class PioClock {
  /** emitFrame(pin, grbBytes, strayBits, tNanos) for each frame a data pin latches. */
  constructor(mcu, emitFrame) {
    this.mcu = mcu;
    this.emitFrame = emitFrame;
    this.decoders = new Map();
    this.next = new Map();  // state machine -> emulated ns of its next PIO cycle (null: stalled)
    this.busy = false;      // some enabled state machine has work: keep slices short
    this.nextAt = 0;        // the grid point of the next catch-up (Infinity: both blocks stopped)
    for (const pio of mcu.pio) {
      // No host-timer stepping: advance() does it. rp2040js calls run() when a state machine
      // of a stopped block starts: the next catch-up is then due at once.
      pio.run = () => {
        this.nextAt = Math.min(this.nextAt, mcu.clock.nanos);
      };
      for (const sm of pio.machines) {
        const write = sm.writeFIFO.bind(sm);
        sm.writeFIFO = (value) => { // a stalled machine resumes when its data arrives
          if (this.next.get(sm) === null) {
            this.next.set(sm, mcu.clock.nanos);
          }
          write(value);
        };
      }
    }
  }

  get running() {
    return !(this.mcu.pio[0].stopped && this.mcu.pio[1].stopped);
  }

  /** True while a state machine has work: time must stop at every grid point. */
  get working() {
    return this.busy && this.running;
  }

  _decoder(pin) {
    let d = this.decoders.get(pin);
    if (!d) {
      d = new PinDecoder(pin, this.emitFrame);
      this.decoders.set(pin, d);
    }
    return d;
  }

  /** At or after nextAt: run every enabled state machine up to emulated time now (ns). */
  advance(now) {
    let busy = false;
    for (let p = 0; p < 2; p++) {
      const pio = this.mcu.pio[p];
      let stepped = false;
      for (const sm of pio.machines) {
        if (!sm.enabled) {
          this.next.delete(sm);
          continue;
        }
        const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
        const period = div * SYS_NS;
        let t = this.next.get(sm);
        if (t === undefined) {
          t = now; // just switched on
        } else if (t === null) {
          t = stalled(sm) ? Infinity : now;
        }
        while (t <= now) {
          if (stalled(sm)) {
            t = Infinity;
            break;
          }
          const before = pio.pinValues;
          const cycles = sm.cycles;
          sm.step();
          stepped = true;
          const changed = (before ^ pio.pinValues) & pio.pinDirections;
          if (changed) {
            for (let pin = 0; pin < 30; pin++) {
              if (changed & (1 << pin)) {
                this._decoder(pin).edge((pio.pinValues >> pin) & 1, t);
              }
            }
          }
          t += Math.max(1, sm.cycles - cycles) * period;
        }
        this.next.set(sm, t === Infinity ? null : t);
        if (t !== Infinity) {
          busy = true;
        }
      }
      if (stepped) {
        pio.checkChangedPins();
      }
    }
    for (const d of this.decoders.values()) {
      d.idle(now);
    }
    this.busy = busy;
    const grid = busy ? SLICE_NS : IDLE_NS;
    this.nextAt = (Math.floor(now / grid) + 1) * grid;
  }
}
