// Reading a Server-Sent Events stream from text chunks, as the HTML standard's
// "event stream interpretation" says: lines end at CR LF, LF or CR (a CR at a chunk's
// end may be the first half of a CR LF); a blank line sends the event; `:` starts a
// comment (the keep-alive); `data` lines join with LF; `id` is kept across events; a
// field without a colon has an empty value. The page reads the stream with fetch,
// because EventSource cannot send the Authorization header, so it parses it here.

export class EventStream {
  constructor() {
    this.rest = ""; // text after the last whole line
    this.lastId = null; // the last `id` the stream gave, sent back as Last-Event-ID
    this.retry = null; // the reconnection time the stream asked for, in ms
    this.kind = "";
    this.data = [];
  }

  // every event the chunk completes, in order: [{id, kind, data}], data as text
  push(chunk) {
    let text = this.rest + chunk;
    // a trailing CR waits for the next chunk: it may be half of a CR LF
    const held = text.endsWith("\r") ? 1 : 0;
    const lines = text.slice(0, text.length - held).split(/\r\n|\r|\n/);
    this.rest = lines.pop() + (held ? "\r" : "");
    const events = [];
    for (const line of lines) {
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  line(line) {
    if (line === "") return this.send();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") this.kind = value;
    else if (name === "data") this.data.push(value);
    else if (name === "id" && !value.includes("\0")) this.lastId = value;
    else if (name === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }

  send() {
    const [kind, data] = [this.kind || "message", this.data];
    this.kind = "";
    this.data = [];
    if (!data.length) return null; // no data: nothing to send (the id is still kept)
    return { id: this.lastId, kind, data: data.join("\n") };
  }
}
