/**
 * `text` with every control character made visible, so that text from outside (a client's topic
 * name, an Origin header, a parse error quoting a frame) cannot break a log line, move the cursor
 * or recolour the terminal: C0 and C1 controls and DEL become `\xNN` (`\n`, `\r`, `\t` keep their
 * usual escapes), bidirectional overrides and isolates become `\u{NNNN}`, and a backslash is
 * doubled so an escape in the input cannot pass for one made here. Printable text is unchanged.
 */
export function escapeControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\\]/g, escapeOne);
}

/**
 * Text for the terminal (a command's report, an error message): its control characters made
 * visible as {@link escapeControlCharacters} does, so a topic name of NUL bytes or escape codes in
 * a recording cannot garble the screen, but its line breaks kept, and backslashes as they are (a
 * report quotes JSON, whose escapes must read as written).
 */
export function terminalText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, escapeOne);
}

function escapeOne(c: string): string {
  switch (c) {
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    default: {
      const code = c.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
    }
  }
}
