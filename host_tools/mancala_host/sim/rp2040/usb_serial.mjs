// The USB host side of the Pico's CDC serial line, as a real host behaves.
//
// rp2040js's USBCDC enumerates the device and carries the bytes, but it answers every OUT
// read at once, with zero bytes when the host has nothing to send. TinyUSB then re-arms the
// endpoint straight away, so the empty answers become an interrupt storm that takes most of
// the emulated CPU. A real host NAKs an OUT transfer until it has data: so does this one.
// The read is held and completed when bytes arrive.
import { USBCDC } from 'rp2040js';

export class SerialLine {
  /** onDeviceBytes(bytes): the device sent them; onTaken(bytes): the device took host bytes. */
  constructor(mcu, onDeviceBytes, onTaken) {
    this.usb = mcu.usbCtrl;
    this.onTaken = onTaken;
    this.pending = [];      // host-to-device bytes not yet taken by the device (Buffers)
    this.heldRead = null;   // {endpoint, size} of an OUT read waiting for bytes
    this.connected = false;
    this.cdc = new USBCDC(this.usb);
    this.cdc.onSerialData = (bytes) => onDeviceBytes(bytes);
    this.cdc.onDeviceConnected = () => {
      this.connected = true;
      this._serve();
    };
    // Replace the answer-at-once OUT read with NAK-until-data.
    this.usb.onEndpointRead = (endpoint, size) => {
      if (endpoint !== this.cdc.outEndpoint) {
        return; // as USBCDC: the host reads nothing else
      }
      this.heldRead = { endpoint, size };
      this._serve();
    };
  }

  /** Bytes from the host (our stdin). */
  write(bytes) {
    if (bytes.length) {
      this.pending.push(Buffer.from(bytes));
      this._serve();
    }
  }

  get waiting() {
    return this.pending.length > 0;
  }

  _serve() {
    const held = this.heldRead;
    if (!held || !this.pending.length) {
      return;
    }
    this.heldRead = null;
    const out = new Uint8Array(held.size);
    let n = 0;
    while (n < held.size && this.pending.length) {
      const head = this.pending[0];
      const take = Math.min(head.length, held.size - n);
      out.set(head.subarray(0, take), n);
      n += take;
      if (take === head.length) {
        this.pending.shift();
      } else {
        this.pending[0] = head.subarray(take);
      }
    }
    this.usb.endpointReadDone(held.endpoint, out.subarray(0, n));
    this.onTaken(out.subarray(0, n));
  }
}
