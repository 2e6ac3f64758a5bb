// The dialog that shows a token the service has just made (a game's, when "Make a game"
// makes one; a player's seat): the service keeps only its hash, so this is the one time
// it can be read. A modal <dialog>, not the status line, where the next action would
// hide it: focus moves into it and goes back to what opened it, Escape closes it, and
// the token leaves the page when it closes.

import { $ } from "./dom.js";

let opener = null; // what had focus when the dialog opened

// show `token` under `title`; `about` says what it is for, `lost` what to do without it
export function showToken({ title, about, token, lost }) {
  const dialog = $("token-dialog");
  if (dialog.open) dialog.close();
  opener = document.activeElement;
  $("token-dialog-title").textContent = title;
  $("token-dialog-about").textContent = about;
  $("token-dialog-warning").textContent = `Shown only once: the service keeps no copy it could show again. Copy it now. ${lost}`;
  $("token-dialog-value").textContent = token;
  tell("", "");
  dialog.showModal();
  $("token-dialog-copy").focus();
}

function tell(text, how) {
  const said = $("token-dialog-said");
  said.textContent = text;
  said.className = `said ${how}`;
}

async function copy() {
  const token = $("token-dialog-value").textContent;
  try {
    await navigator.clipboard.writeText(token);
    tell("Copied.", "ok");
  } catch {
    // no clipboard here (an insecure page, a browser that says no): select it to copy by hand
    const range = document.createRange();
    range.selectNodeContents($("token-dialog-value"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    tell("This browser would not copy it: it is selected, copy it with Ctrl+C (⌘C on a Mac).", "refused");
  }
}

export function setUpDialog() {
  const dialog = $("token-dialog");
  $("token-dialog-copy").addEventListener("click", copy);
  dialog.addEventListener("close", () => {
    $("token-dialog-value").textContent = "";
    tell("", "");
    const back = opener && opener.isConnected && !opener.closest("[hidden]") ? opener : null;
    opener = null;
    if (back) back.focus();
  });
}
