// The flash chip's unique id: the W25Q16JV answers its Read Unique ID command (0x4B, four
// dummy bytes, then 64 bits) with a number of its own, which pico-sdk reads once at start-up
// (flash_get_unique_id) for MicroPython's machine.unique_id() and CircuitPython's
// microcontroller.cpu.uid. rp2040js answers every byte sent through the SSI with 0, so every
// emulated Pico would be the same board.
//
// Each flash folder is one board: its id is drawn at random at the first start and kept in
// the folder's .unique_id (8 bytes), beside flash.bin, as the unix-port sim keeps it, so no
// reflash or power cut changes it. pico-sdk sends a command with the chip select forced low
// through IO_QSPI's GPIO_QSPI_SS_CTRL (OUTOVER), then one byte at a time through the SSI's
// DR0, reading each byte's answer back before it sends the next; the model counts the bytes
// from the chip select going low and, in a 0x4B command, answers bytes 5 to 12 with the id.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const ID_FILE = '.unique_id';
const ID_BYTES = 8;
const CMD_READ_UNIQUE_ID = 0x4b;
const DUMMY_BYTES = 4;
const IO_QSPI = 0x40018; // rp2040js's peripheral table key (address >>> 14 << 2)
const SSI = 0x18000;
const SS_CTRL = 0x0c; // io[1].ctrl: the chip select's pad
const OUTOVER_SHIFT = 8;
const OUTOVER_LOW = 2;
const SSI_DR0 = 0x60;

/** The id of the board whose flash file is flashPath: read, or drawn and kept. */
export function uniqueId(flashPath) {
  const file = path.join(path.dirname(flashPath), ID_FILE);
  if (fs.existsSync(file)) {
    const id = fs.readFileSync(file);
    if (id.length === ID_BYTES) {
      return Uint8Array.from(id);
    }
  }
  const id = crypto.randomBytes(ID_BYTES);
  fs.writeFileSync(`${file}.tmp`, id);
  fs.renameSync(`${file}.tmp`, file);
  return Uint8Array.from(id);
}

/** Makes mcu's flash answer Read Unique ID with id (8 bytes). */
export function modelUniqueId(mcu, id) {
  const qspi = mcu.peripherals[IO_QSPI];
  const ssi = mcu.peripherals[SSI];
  let selected = false;
  let sent = 0; // bytes of the command in progress
  let command = -1;
  const qspiWrite = qspi.writeUint32.bind(qspi);
  qspi.writeUint32 = (offset, value) => {
    if (offset === SS_CTRL) {
      const low = ((value >>> OUTOVER_SHIFT) & 3) === OUTOVER_LOW;
      if (low && !selected) {
        sent = 0;
        command = -1;
      }
      selected = low;
      return; // the pad itself is not modelled
    }
    qspiWrite(offset, value);
  };
  const ssiWrite = ssi.writeUint32.bind(ssi);
  ssi.writeUint32 = (offset, value) => {
    ssiWrite(offset, value);
    if (offset !== SSI_DR0 || !selected) {
      return;
    }
    if (sent === 0) {
      command = value & 0xff;
    }
    const at = sent - 1 - DUMMY_BYTES;
    // any other byte is answered 0, as rp2040js answers every byte
    ssi.dr0 = command === CMD_READ_UNIQUE_ID && at >= 0 && at < ID_BYTES ? id[at] : 0;
    sent += 1;
  };
}
