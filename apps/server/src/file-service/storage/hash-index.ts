import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface IndexedFile {
  userPath: string;
  size: number;
  mtimeMs: number;
}

/**
 * Content hashes of files this service wrote (uploads, merges, instant-upload copies), per account, for
 * instant upload. It lives on the file service's own disk (`<storageRoot>/.meta/index.db`) so the file
 * service needs no database of the gateway. It is only a hint: a row is trusted only while the file at its
 * path still has the recorded size and mtime (anything else may have rewritten it), and stale rows are
 * dropped when found. The database is opened at its first use, not when the service starts: most starts
 * (every test app, two centers each) never upload, and creating it (WAL, the table, their syncs) took ~5 ms of
 * CPU and ~40 ms of waiting on the disk per center (issue 26).
 */
export class HashIndex {
  private opened: {
    db: Database.Database;
    insert: Database.Statement;
    select: Database.Statement;
    del: Database.Statement;
  } | null = null;
  private closed = false;

  constructor(private readonly file: string) {}

  private open() {
    if (this.opened) return this.opened;
    // As an open database does once closed: a late write after the service stopped fails, never reopens it.
    if (this.closed) throw new TypeError('The database connection is not open');
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const db = new Database(this.file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TABLE IF NOT EXISTS content (
      account TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      user_path TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      PRIMARY KEY (account, sha256, user_path)
    )`);
    this.opened = {
      db,
      insert: db.prepare('INSERT OR REPLACE INTO content (account, sha256, user_path, size, mtime_ms) VALUES (?, ?, ?, ?, ?)'),
      select: db.prepare('SELECT user_path AS userPath, size, mtime_ms AS mtimeMs FROM content WHERE account = ? AND sha256 = ? LIMIT 20'),
      del: db.prepare('DELETE FROM content WHERE account = ? AND sha256 = ? AND user_path = ?'),
    };
    return this.opened;
  }

  record(account: string, sha256: string, f: IndexedFile) {
    this.open().insert.run(account, sha256, f.userPath, f.size, f.mtimeMs);
  }

  candidates(account: string, sha256: string): IndexedFile[] {
    return this.open().select.all(account, sha256) as IndexedFile[];
  }

  forget(account: string, sha256: string, userPath: string) {
    this.open().del.run(account, sha256, userPath);
  }

  close() {
    this.closed = true;
    this.opened?.db.close();
    this.opened = null;
  }
}
