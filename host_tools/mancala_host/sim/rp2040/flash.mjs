// The Pico's 2 MB QSPI flash: the UF2 image, the flash file kept between runs, and the boot
// ROM's erase and program routines trapped so that writes reach both.
//
// rp2040js models flash as a plain array and ignores the SSI's erase and program commands, so
// littlefs writes would be lost. Every flash write on an RP2040 goes through the boot ROM's
// flash_range_erase ('RE') and flash_range_program ('RP') (pico-sdk's hardware_flash looks
// them up in the ROM function table). The harness finds both entry points through that table
// and, when the core is about to run one, does its work on the array, writes the changed
// bytes through to the flash file, charges the W25Q16JV's typical time to the emulated clock
// (the CPU is stalled on a real Pico too: XIP is off while the flash is busy) and returns.
//
// Power cuts inside a flash operation (PowerCuts, from MANCALA_SIM_POWER_CUTS) leave what a
// real chip leaves: an erase cut short has raised only some of the sector's 0 bits to 1, a
// page program cut short has cleared only some of the bits it was clearing, and the pages
// of a program after the one in progress are untouched. Which bits is not known on a real
// chip; here each is decided by a PRNG seeded from the cut, so a run repeats exactly, and
// the share of bits done is the share of the operation's typical time that had passed.
import fs from 'node:fs';

export const FLASH_BASE = 0x10000000;
export const FLASH_SIZE = 2 * 1024 * 1024; // RPI_PICO: W25Q16JV, 16 Mbit
export const SECTOR = 4096;
export const PAGE = 256;
// W25Q16JV typical figures (datasheet, AC characteristics): 4 KB sector erase tSE 45 ms
// (max 400 ms), page program tPP 0.4 ms (max 3 ms). Typical, so that latencies read as a
// typical board's; a worn or hot chip is slower.
export const ERASE_NS_PER_SECTOR = 45e6;
export const PROGRAM_NS_PER_PAGE = 0.4e6;
// The ROM erases a whole aligned block at once when asked for one (pico-sdk asks for 64 KB
// blocks, command 0xD8): tBE2 150 ms typical for 64 KB, tBE1 120 ms for 32 KB.
const BLOCK_ERASE_NS = { 65536: 150e6, 32768: 120e6 };

/** Emulated ns the flash takes to erase count bytes at offset, as the ROM goes about it. */
export function eraseNanos(offset, count, blockSize) {
  const blockNs = BLOCK_ERASE_NS[blockSize];
  let ns = 0;
  for (let at = offset, end = offset + count; at < end;) {
    if (blockNs && at % blockSize === 0 && end - at >= blockSize) {
      ns += blockNs;
      at += blockSize;
    } else {
      ns += ERASE_NS_PER_SECTOR;
      at += SECTOR;
    }
  }
  return ns;
}

const UF2_MAGIC0 = 0x0a324655;
const UF2_MAGIC1 = 0x9e5d5157;
const UF2_MAGIC_END = 0x0ab16f30;

/** Parse a UF2 file into [{address, data}] blocks; throws Error with one sentence if bad. */
export function readUF2(path) {
  const buf = fs.readFileSync(path);
  if (buf.length === 0 || buf.length % 512) {
    throw new Error(`${path} is not a UF2 image (its size is not a multiple of 512 bytes)`);
  }
  const blocks = [];
  for (let off = 0; off < buf.length; off += 512) {
    const v = new DataView(buf.buffer, buf.byteOffset + off, 512);
    if (v.getUint32(0, true) !== UF2_MAGIC0 || v.getUint32(4, true) !== UF2_MAGIC1 ||
        v.getUint32(508, true) !== UF2_MAGIC_END) {
      throw new Error(`${path} is not a UF2 image (bad magic in block ${off / 512})`);
    }
    const address = v.getUint32(12, true);
    const size = v.getUint32(16, true);
    if (size > 476 || address < FLASH_BASE || address + size > FLASH_BASE + FLASH_SIZE) {
      throw new Error(`${path} has a block outside the Pico's flash (block ${off / 512})`);
    }
    blocks.push({ address, data: buf.subarray(off + 32, off + 32 + size) });
  }
  return blocks;
}

/**
 * The flash as a file: FLASH_SIZE bytes, written through on every erase and program.
 * A missing file starts erased (0xFF). The UF2's blocks are written over it at every start,
 * as a reflash through BOOTSEL would; the rest (the filesystem) is kept.
 */
export class FlashFile {
  constructor(path, uf2Blocks) {
    this.path = path;
    this.data = new Uint8Array(FLASH_SIZE);
    let fresh = true;
    if (fs.existsSync(path)) {
      const old = fs.readFileSync(path);
      if (old.length !== FLASH_SIZE) {
        throw new Error(`${path} is not a Pico flash image (${old.length} bytes, not ${FLASH_SIZE})`);
      }
      this.data.set(old);
      fresh = false;
    }
    if (fresh) {
      this.data.fill(0xff);
    }
    for (const { address, data } of uf2Blocks) {
      this.data.set(data, address - FLASH_BASE);
    }
    this.fd = fs.openSync(path, fresh ? 'w+' : 'r+');
    fs.writeSync(this.fd, this.data, 0, FLASH_SIZE, 0);
  }

  /** Copy into the chip's flash array. */
  loadInto(mcu) {
    mcu.flash.set(this.data, 0);
  }

  erase(mcu, offset, count) {
    mcu.flash.fill(0xff, offset, offset + count);
    this.data.fill(0xff, offset, offset + count);
    fs.writeSync(this.fd, this.data, offset, count, offset);
  }

  /** Write bytes as they are (a cut operation's result), through to the file. */
  set(mcu, offset, bytes) {
    this.data.set(bytes, offset);
    mcu.flash.set(bytes, offset);
    fs.writeSync(this.fd, this.data, offset, bytes.length, offset);
  }

  program(mcu, offset, bytes) {
    // NOR flash: programming only clears bits.
    for (let i = 0; i < bytes.length; i++) {
      const v = this.data[offset + i] & bytes[i];
      this.data[offset + i] = v;
      mcu.flash[offset + i] = v;
    }
    fs.writeSync(this.fd, this.data, offset, bytes.length, offset);
  }
}

/** A small seeded PRNG (mulberry32): the same cut leaves the same bits. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each bit that differs between from and to takes to's value with probability share. */
export function partly(from, to, share, random) {
  const out = Uint8Array.from(from);
  for (let i = 0; i < out.length; i++) {
    let diff = from[i] ^ to[i];
    while (diff) {
      const bit = diff & -diff;
      diff ^= bit;
      if (random() < share) {
        out[i] ^= bit;
      }
    }
  }
  return out;
}

/**
 * Power cuts armed for flash operations: MANCALA_SIM_POWER_CUTS is a JSON list of
 * {"op": "erase" | "program", "sector": flash offset, "nth": N, "after_ns": T}, each cutting
 * the power T emulated ns into the Nth operation of that kind touching that 4 KB sector,
 * counted from the power-up before it; with "bytes": B, only operations of B bytes count.
 * The cuts are taken in order, one per power-up.
 */
export class PowerCuts {
  constructor(spec) {
    this.cuts = [];
    if (spec) {
      let list;
      try {
        list = JSON.parse(spec);
      } catch (e) {
        throw new Error(`MANCALA_SIM_POWER_CUTS is not JSON: ${e.message}`);
      }
      if (!Array.isArray(list) || !list.every((c) => c && ['erase', 'program'].includes(c.op) &&
          Number.isInteger(c.sector) && c.sector % SECTOR === 0 && Number.isInteger(c.nth) &&
          c.nth >= 1 && typeof c.after_ns === 'number' && c.after_ns >= 0 &&
          (c.bytes === undefined || Number.isInteger(c.bytes)))) {
        throw new Error('MANCALA_SIM_POWER_CUTS takes a list of {"op": "erase" or "program", ' +
          '"sector": a sector\'s flash offset, "nth": 1 or more, "after_ns": 0 or more, ' +
          'and optionally "bytes": a size}');
      }
      this.cuts = list;
    }
    this.seen = 0;
  }

  /** A power-up: counting starts again. */
  powerUp() {
    this.seen = 0;
  }

  /** The armed cut if this operation is the one it names, else null (and it is counted). */
  hit(op, offset, count) {
    const cut = this.cuts[0];
    if (!cut || cut.op !== op || offset >= cut.sector + SECTOR || offset + count <= cut.sector ||
        (cut.bytes !== undefined && cut.bytes !== count)) {
      return null;
    }
    this.seen += 1;
    if (this.seen !== cut.nth) {
      return null;
    }
    this.cuts.shift();
    return cut;
  }
}

/** The ROM function table lookup at 0x14: code ('R','E') -> entry address (even). */
export function romFunction(mcu, a, b) {
  const table = mcu.readUint16(0x14);
  const code = a.charCodeAt(0) | (b.charCodeAt(0) << 8);
  for (let p = table; ; p += 4) {
    const c = mcu.readUint16(p);
    if (c === 0) {
      return null;
    }
    if (c === code) {
      return mcu.readUint16(p + 2) & ~1;
    }
  }
}

/**
 * Traps for flash_range_erase(addr, count, block_size, block_cmd) and
 * flash_range_program(addr, data, count). check(pc) runs one if the core is at its entry
 * and returns true; the caller checks pc before each instruction.
 */
export class FlashTraps {
  /**
   * stall(ns): let emulated time pass with the CPU stopped (DMA and PIO go on).
   * cuts: PowerCuts; powerCut(cut, what) ends the power-up when one is taken.
   */
  constructor(mcu, flashFile, log, stall, cuts = new PowerCuts(null), powerCut = () => {}) {
    this.mcu = mcu;
    this.stall = stall;
    this.cuts = cuts;
    this.powerCut = powerCut;
    this.file = flashFile;
    this.log = log;
    this.erase = romFunction(mcu, 'R', 'E');
    this.program = romFunction(mcu, 'R', 'P');
    if (this.erase === null || this.program === null) {
      throw new Error('the boot ROM has no flash_range_erase/flash_range_program entries');
    }
  }

  check(pc) {
    if (pc === this.erase) {
      this._erase();
      return true;
    }
    if (pc === this.program) {
      this._program();
      return true;
    }
    return false;
  }

  _return() {
    const core = this.mcu.core;
    core.PC = core.LR & ~1;
  }

  _inRange(offset, count) {
    return offset >= 0 && count >= 0 && offset + count <= FLASH_SIZE;
  }

  /**
   * One erase or program of ns: done whole, or cut short by an armed power cut (cutShort(cut)
   * gives the bytes it leaves). True if the power went: the core stays where it is.
   */
  _operate(op, offset, count, ns, whole, cutShort) {
    const cut = this.cuts.hit(op, offset, count);
    const what = `flash_range_${op}(0x${offset.toString(16)}, ${count})`;
    if (cut && cut.after_ns < ns) {
      this.file.set(this.mcu, offset, cutShort(cut));
      this.stall(cut.after_ns);
      this.powerCut(cut, `${what} ${cut.after_ns / 1e6} ms into its ${ns / 1e6} ms`);
      return true;
    }
    whole();
    this.stall(ns);
    if (cut) {
      this.powerCut(cut, `${what} as it ended`);
      return true;
    }
    return false;
  }

  _erase() {
    const r = this.mcu.core.registers;
    const offset = r[0] >>> 0;
    const count = r[1] >>> 0;
    if (offset % SECTOR || count % SECTOR || !this._inRange(offset, count)) {
      this.log(`flash_range_erase(0x${offset.toString(16)}, ${count}) is not whole sectors inside the flash: ignored`);
    } else {
      const ns = eraseNanos(offset, count, r[2] >>> 0);
      const cut = (c) => partly(this.file.data.subarray(offset, offset + count),
        new Uint8Array(count).fill(0xff), c.after_ns / ns, prng(offset ^ c.nth ^ Math.round(c.after_ns)));
      if (this._operate('erase', offset, count, ns, () => this.file.erase(this.mcu, offset, count), cut)) {
        return;
      }
    }
    this._return();
  }

  _program() {
    const r = this.mcu.core.registers;
    const offset = r[0] >>> 0;
    const src = r[1] >>> 0;
    const count = r[2] >>> 0;
    if (offset % PAGE || count % PAGE || !this._inRange(offset, count)) {
      this.log(`flash_range_program(0x${offset.toString(16)}, ${count}) is not whole pages inside the flash: ignored`);
    } else {
      const bytes = new Uint8Array(count);
      for (let i = 0; i < count; i++) {
        bytes[i] = this.mcu.readUint8(src + i);
      }
      const ns = (count / PAGE) * PROGRAM_NS_PER_PAGE;
      const cut = (c) => {
        // Pages are programmed one after another: those before the cut whole, the one in
        // progress in part, the rest not at all.
        const done = Math.floor(c.after_ns / PROGRAM_NS_PER_PAGE) * PAGE;
        const from = this.file.data.slice(offset, offset + count);
        const whole = from.map((v, i) => v & bytes[i]);
        const page = partly(from.subarray(done, done + PAGE), whole.subarray(done, done + PAGE),
          (c.after_ns % PROGRAM_NS_PER_PAGE) / PROGRAM_NS_PER_PAGE,
          prng(offset ^ c.nth ^ Math.round(c.after_ns)));
        from.set(whole.subarray(0, done), 0);
        from.set(page, done);
        return from;
      };
      if (this._operate('program', offset, count, ns, () => this.file.program(this.mcu, offset, bytes), cut)) {
        return;
      }
    }
    this._return();
  }
}
