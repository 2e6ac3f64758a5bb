// The History list's records, merged by record id from whatever arrives, in whatever
// order: a page the list read (the newest, read again after each change, or an older
// one) and a record a live event brought. A read answered after an event (the record
// made while the read was under way) keeps the event's record, and a record is listed
// once, as its latest answer left it (answers only add to a record). No drawing here:
// play.js draws the lines.

// how far a record was answered (a raise, then a choice: its answers only grow)
const answers = (record) => Object.keys(record.answered || {}).length;

export class History {
  constructor() {
    this.known = new Map(); // record id → the record, as its latest answer left it
    this.next = null; // the next older page, from the last page read (null: none older)
  }

  // a page of records read, newest first; `fresh`: the newest page, after which the
  // older pages read before are let go (records newer than its oldest are kept: they
  // were made after it was read)
  page(records, next, fresh) {
    if (fresh && next !== null && records.length) {
      const oldest = Math.min(...records.map((r) => r.id));
      for (const id of [...this.known.keys()]) if (id < oldest) this.known.delete(id);
    }
    this.next = next;
    for (const record of records) this.add(record);
  }

  // a record an event brought; false when it is older than every record listed while
  // older ones are not read yet (it waits for "Older records")
  record(record) {
    const listed = [...this.known.keys()];
    if (!this.known.has(record.id) && this.next !== null && listed.length && record.id < Math.min(...listed)) return false;
    this.add(record);
    return true;
  }

  add(record) {
    const had = this.known.get(record.id);
    if (!had || answers(record) >= answers(had)) this.known.set(record.id, record);
  }

  newestFirst() {
    return [...this.known.values()].sort((a, b) => b.id - a.id);
  }
}
