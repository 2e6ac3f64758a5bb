// Reading a Server-Sent Events stream from text chunks, as the HTML standard's
// "event stream interpretation" says: lines end at CR LF, LF or CR (a CR that ends a
// chunk ends its line, and an LF opening the next chunk is its pair); a blank line
// sends the event; `:` starts a comment (the keep-alive); `data` lines join with LF;
// `id` is kept across events; a field without a colon has an empty value. The page
// reads the stream with fetch, because EventSource cannot send the Authorization
// header, so it parses it here.

export class EventStream {
  constructor() {
    this.rest = ""; // text after the last whole line
    this.afterCR = false; // the last chunk ended with CR: a LF first in the next is its pair
    this.lastId = null; // the last `id` the stream gave, sent back as Last-Event-ID
    this.retry = null; // the reconnection time the stream asked for, in ms
    this.kind = "";
    this.data = [];
  }

  // every event the chunk completes, in order: [{id, kind, data}], data as text
  push(chunk) {
    let text = chunk;
    // a CR ended the last chunk's line at once; an LF after it is the same line end
    if (this.afterCR && text.startsWith("\n")) text = text.slice(1);
    if (chunk) this.afterCR = chunk.endsWith("\r");
    const lines = (this.rest + text).split(/\r\n|\r|\n/);
    this.rest = lines.pop();
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
