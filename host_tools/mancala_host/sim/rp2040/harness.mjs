// The emulated Pico of `mancala-board sim --target rp2040`: a stock MicroPython rp2 image on
// rp2040js, with the board's devices. Started by sim/rp2040.py; docs/sim.md describes it.
//
//   node harness.mjs --bootrom ROM --image UF2 --flash FILE [--i2c ID:SDA:SCL] [--irq PIN]
//                    [--trace FILE] [--pace realtime|free]
//
// stdin/stdout are the USB CDC serial line, raw bytes both ways; diagnostics go to stderr.
// The I2C devices are the device process's (MANCALA_SIM_BUS, sim/devices.py), LED frames are
// appended to MANCALA_SIM_FRAMES as {"pin": N, "grb": "<hex>"} lines. MANCALA_SIM_POWER_CUTS
// arms power cuts inside flash operations (flash.mjs, PowerCuts): after each, the chip powers
// up again on the flash as the cut left it.
//
// A HardFault the chip takes (faults.mjs) is one line on stderr naming the fault, its address
// and the PC; a lock-up after it is one more. With the watchdog running the harness goes on
// until it resets the chip; with none, the board is dead and the harness exits with code 3.
//
// Time is the emulated clock's only. --pace realtime (the default) never lets it run ahead
// of the host's clock, so a finger held for 0.1 s on the host is held at most 0.1 emulated s:
// while the chip waits (WFE/WFI) the harness sleeps until the next timer alarm is due. While
// the chip computes, emulated time runs slower than the host's (about 0.3x), and a wait
// after that starts level again (no catching up). --pace free skips waits at once.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Board } from './board.mjs';
import { Fault } from './faults.mjs';
import { FlashFile, PowerCuts, readUF2 } from './flash.mjs';
import { uniqueId } from './flash_id.mjs';
import { LineSplitter, Trace } from './trace.mjs';

const CHUNK_NS = 2e6;        // emulated time run between looks at the host's I/O
const MAX_LAG_NS = 20e6;     // behind the host by more than this: start level again
const DEAD = 3;              // exit code: the core locked up with no watchdog to reset it

function fail(message) {
  process.stderr.write(`emulated Pico: ${message}\n`);
  process.exit(2);
}

function options() {
  const { values } = parseArgs({
    options: {
      bootrom: { type: 'string' },
      image: { type: 'string' },
      flash: { type: 'string' },
      i2c: { type: 'string' },
      irq: { type: 'string' },
      trace: { type: 'string' },
      pace: { type: 'string', default: 'realtime' },
    },
  });
  for (const need of ['bootrom', 'image', 'flash']) {
    if (!values[need]) {
      fail(`--${need} is required`);
    }
  }
  if (!['realtime', 'free'].includes(values.pace)) {
    fail(`--pace takes realtime or free, not ${values.pace}`);
  }
  let i2c = null;
  if (values.i2c) {
    const parts = values.i2c.split(':').map((s) => parseInt(s, 10));
    if (parts.length !== 3 || parts.some((n) => !(n >= 0 && n < 30)) || parts[0] > 1) {
      fail(`--i2c takes ID:SDA:SCL such as 0:4:5, not ${values.i2c}`);
    }
    i2c = { id: parts[0], sda: parts[1], scl: parts[2] };
  }
  let irqPin = null;
  if (values.irq !== undefined) {
    irqPin = parseInt(values.irq, 10);
    if (!(irqPin >= 0 && irqPin < 30) || !i2c) {
      fail(`--irq takes a GPIO number 0-29 and needs --i2c, not ${values.irq}`);
    }
  }
  return { ...values, i2c, irqPin };
}

function main() {
  const opts = options();
  let bootrom;
  let blocks;
  let flash;
  let cuts;
  let chipId;
  try {
    const rom = fs.readFileSync(opts.bootrom);
    bootrom = new Uint32Array(rom.buffer, rom.byteOffset, rom.length >> 2);
    blocks = readUF2(opts.image);
    flash = new FlashFile(opts.flash, blocks);
    chipId = uniqueId(opts.flash);
    cuts = new PowerCuts(process.env.MANCALA_SIM_POWER_CUTS);
  } catch (e) {
    fail(e.code ? `${e.path || ''}: ${e.code}` : e.message);
  }
  let trace;
  let framesFd = null;
  try {
    trace = new Trace(opts.trace);
    if (process.env.MANCALA_SIM_FRAMES) {
      framesFd = fs.openSync(process.env.MANCALA_SIM_FRAMES, 'a');
    }
  } catch (e) {
    fail(`cannot write ${e.path}: ${e.code}`);
  }
  const log = (text) => process.stderr.write(`emulated Pico: ${text}\n`);

  let board = null;
  const out = new LineSplitter((line) => trace.write(board.clock.nanos, 'serial_out', { line }));
  const inLines = new LineSplitter((line) => trace.write(board.clock.nanos, 'serial_in', { line }));
  const onSerial = (bytes) => {
    out.push(bytes);
    process.stdout.write(Buffer.from(bytes));
  };
  const onFrame = (pin, bytes, stray, tNanos) => {
    const grb = Buffer.from(bytes).toString('hex');
    if (stray) {
      log(`a frame on pin ${pin} ended ${stray} bits into a byte`);
    }
    trace.write(tNanos, 'frame', { pin, grb });
    if (framesFd !== null) {
      fs.writeSync(framesFd, `{"pin": ${pin}, "grb": "${grb}"}\n`);
    }
  };

  // Each HardFault the core takes is a line (the firmware's handler then runs: MicroPython's
  // locks up, CircuitPython's resets into safe mode); a lock-up is one more, saying what
  // becomes of the board, with the fault when none was reported before it.
  const hardFault = (line) => {
    trace.write(board ? board.clock.nanos : 0, 'fault', { line });
    log(line);
  };
  const lockedUp = (b) => {
    const what = b.faults.reported ? 'the core locked up in the HardFault handler'
      : b.faults.describe();
    trace.write(b.clock.nanos, 'lockup', { line: what });
    if (b.watchdogRunning) {
      log(`${what}; the watchdog will reset it`);
    } else {
      log(`${what}, and no watchdog is running: the board is dead`);
      process.exit(DEAD);
    }
  };

  const powerUp = (startNanos, reset) => {
    cuts.powerUp();
    return new Board({
      cuts,
      bootrom, flash, uniqueId: chipId, startNanos, i2c: opts.i2c, irqPin: opts.irqPin, wireSpec: process.env.MANCALA_SIM_BUS,
      wire: board ? board.wire : null, resetReason: reset ? reset.resetReason : 0,
      scratch: reset ? reset.scratch : null, onSerial, onTaken: (bytes) => inLines.push(bytes),
      onFrame, log, onHardFault: hardFault,
    });
  };
  board = powerUp(0, null);

  let hostAnchor = process.hrtime.bigint();
  let emuAnchor = 0;
  const runChunk = () => {
    if (board.halted) {
      const why = board.halted;
      trace.write(board.clock.nanos, 'reset', { cause: why.reason });
      if (why.what) {
        log(`power cut during ${why.what}; powering up again on the flash as it was left`);
      } else {
        log(`reset by ${why.reason}; rebooting with the flash kept`);
      }
      board = powerUp(board.clock.nanos, why);
    }
    const { mcu, clock, pio, traps, faults } = board;
    const core = mcu.core;
    const regs = core.registers;
    const trapErase = traps.erase;
    const trapProgram = traps.program;
    let end = clock.nanos + CHUNK_NS;
    if (opts.pace === 'realtime') {
      const host = Number(process.hrtime.bigint() - hostAnchor);
      const ahead = clock.nanos - emuAnchor - host;
      if (ahead < -MAX_LAG_NS) { // computing left us behind: do not rush to catch up
        hostAnchor = process.hrtime.bigint();
        emuAnchor = clock.nanos;
      } else if (ahead >= 0 && (core.waiting || faults.lockedUp)) {
        setTimeout(runChunk, Math.max(1, Math.ceil(ahead / 1e6)));
        return;
      }
      end = Math.min(end, emuAnchor + Number(process.hrtime.bigint() - hostAnchor) + CHUNK_NS);
    }
    while (clock.nanos < end && !board.halted) {
      if (core.waiting || faults.lockedUp) { // a locked-up core runs nothing; the rest goes on
        let dt = clock.nextAlarm ? clock.nanosToNextAlarm : end - clock.nanos;
        if (pio.working && clock.nanos + dt > pio.nextAt) {
          dt = Math.max(0, pio.nextAt - clock.nanos); // PIO has work: stop at its grid
        }
        if (clock.nanos + dt > end) {
          dt = end - clock.nanos;
        }
        clock.tick(dt);
      } else {
        let pc = regs[15];
        if (pc === trapErase || pc === trapProgram) {
          traps.check(pc);
        } else {
          // Instructions back to back until the next thing that is not the core's own: the
          // chunk's end, an alarm due, PIO's next grid point (or a state machine starting), a
          // wait, a reset, a trapped ROM routine. Between those, an instruction's time only
          // moves the counter, so the loop sets it itself rather than calling clock.tick()
          // (which would find no alarm due); the last instruction ticks the clock properly.
          // The same instructions see the same times as one tick() each: only the host's work
          // is less.
          const alarm = clock.nextAlarm;
          const alarmAt = alarm ? alarm.nanos : Infinity;
          const pioAt = pio.nextAt; // Infinity while PIO is stopped, until it starts
          const stop = Math.min(end, alarmAt, pioAt);
          try {
            for (;;) {
              const ns = core.executeInstruction() * 8;
              const next = clock.nextAlarm;
              const t = clock.nanosCounter + ns;
              if (t >= stop || next !== alarm || (next && next.nanos !== alarmAt) ||
                  pio.nextAt !== pioAt) {
                clock.tick(ns);
                break;
              }
              clock.nanosCounter = t;
              if (core.waiting || board.halted) {
                break;
              }
              pc = regs[15];
              if (pc === trapErase || pc === trapProgram) {
                break;
              }
            }
          } catch (e) {
            if (!(e instanceof Fault)) {
              throw e;
            }
            faults.take(e, pc & ~1);
            clock.tick(8);
            if (faults.lockedUp) {
              lockedUp(board);
            }
          }
        }
      }
      if (clock.nanos >= pio.nextAt) {
        if (pio.running) {
          pio.advance(clock.nanos);
        } else {
          pio.nextAt = Infinity; // nothing to catch up until a state machine starts
        }
      }
    }
    setImmediate(runChunk);
  };

  process.stdin.on('data', (chunk) => board.serial.write(chunk)); // to whichever power-up runs
  process.stdin.on('end', () => process.exit(0)); // the host closed the line: power off
  process.stdout.on('error', () => process.exit(0));
  runChunk();
}

main();
