// Where log lines go: appended to a list in memory, and written out asynchronously (fs.write, off
// the event loop) in blocks of at least 16 KiB, or at the latest a second after a line was logged;
// flushSync writes what is still held, for the process's exit. A request never waits for a write.
// Not pino.destination (sonic-boom): it measures the whole pending block (Buffer.byteLength) on
// every line, which cost ~2 µs per line here, and wrote each line on its own at low load
// (docs/performance.md).
import { write, writeSync } from 'node:fs';

export interface LogDestination {
  write(line: string): void;
  /**
   * Writes every line still held, synchronously. A block already handed to fs.write is the
   * kernel's to finish; at exit, the lines written here may land before it.
   */
  flushSync(): void;
}

export interface LogDestinationOptions {
  minBytes?: number;
  flushEveryMs?: number;
  /** The file system calls used, for tests. */
  fs?: { write: typeof write; writeSync: typeof writeSync };
}

export function createLogDestination(fd: number, options: LogDestinationOptions = {}): LogDestination {
  const { minBytes = 16 * 1024, flushEveryMs = 1000, fs = { write, writeSync } } = options;
  const file = { fs, fd };
  let held: string[] = [];
  // Lines are ASCII but for pet names and messages: string length is close enough to bytes here.
  let heldLength = 0;
  let writing = false;
  let timer: NodeJS.Timeout | undefined;

  const take = () => {
    const block = Buffer.from(held.join(''));
    held = [];
    heldLength = 0;
    return block;
  };
  const later = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      writeHeld();
    }, flushEveryMs).unref();
  };
  const writeHeld = () => {
    if (writing || held.length === 0) return;
    writing = true;
    writeFully(file, take(), () => {
      writing = false;
      if (heldLength >= minBytes) writeHeld();
      else if (held.length > 0) later();
    });
  };

  return {
    write(line) {
      held.push(line);
      heldLength += line.length;
      if (heldLength >= minBytes) writeHeld();
      else later();
    },
    flushSync() {
      if (held.length === 0) return;
      const block = take();
      for (let offset = 0; offset < block.length;) offset += fs.writeSync(fd, block, offset);
    },
  };
}

/** Writes the whole block, going on after a short write and retrying while a pipe is full (EAGAIN). */
function writeFully(
  file: { fs: NonNullable<LogDestinationOptions['fs']>; fd: number },
  block: Buffer,
  done: () => void,
  offset = 0,
): void {
  const { fs, fd } = file;
  fs.write(fd, block, offset, block.length - offset, null, (error, written) => {
    if (error?.code === 'EAGAIN') {
      setTimeout(() => writeFully(file, block, done, offset), 10).unref();
    } else if (error !== null) {
      process.emitWarning(`${block.length - offset} bytes of log lines could not be written: ${error.message}`);
      done();
    } else if (offset + written < block.length) {
      writeFully(file, block, done, offset + written);
    } else {
      done();
    }
  });
}
