// --trace FILE: JSON lines with the emulated time in microseconds, for latency measured from
// outside the firmware. Kinds written here: "frame" (a latched LED frame), "serial_in" and
// "serial_out" (a whole line on the USB serial line), "reset", "fault" and "lockup". The
// device process writes "pad" lines (the MPR121 model's finger changes) to the same file.
import fs from 'node:fs';

export class Trace {
  constructor(path) {
    this.fd = path ? fs.openSync(path, 'a') : null;
  }

  write(tNanos, kind, fields) {
    if (this.fd === null) {
      return;
    }
    const line = JSON.stringify({ t_us: Math.floor(tNanos / 1000), kind, ...fields }) + '\n';
    fs.writeSync(this.fd, line);
  }
}

/** Splits a byte stream into lines for the trace (the bytes themselves pass unchanged). */
export class LineSplitter {
  constructor(onLine) {
    this.onLine = onLine;
    this.parts = [];
  }

  push(bytes) {
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 10) {
        this.parts.push(Buffer.from(bytes.subarray(start, i)));
        const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
        this.parts = [];
        this.onLine(line);
        start = i + 1;
      }
    }
    if (start < bytes.length) {
      this.parts.push(Buffer.from(bytes.subarray(start)));
    }
  }
}
