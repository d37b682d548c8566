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
  /** stall(ns): let emulated time pass with the CPU stopped (DMA and PIO go on). */
  constructor(mcu, flashFile, log, stall) {
    this.mcu = mcu;
    this.stall = stall;
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

  _erase() {
    const r = this.mcu.core.registers;
    const offset = r[0] >>> 0;
    const count = r[1] >>> 0;
    if (offset % SECTOR || count % SECTOR || !this._inRange(offset, count)) {
      this.log(`flash_range_erase(0x${offset.toString(16)}, ${count}) is not whole sectors inside the flash: ignored`);
    } else {
      this.file.erase(this.mcu, offset, count);
      this.stall(eraseNanos(offset, count, r[2] >>> 0));
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
      this.file.program(this.mcu, offset, bytes);
      this.stall((count / PAGE) * PROGRAM_NS_PER_PAGE);
    }
    this._return();
  }
}
