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
 * dropped when found.
 */
export class HashIndex {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly del: Database.Statement;

  constructor(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS content (
      account TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      user_path TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      PRIMARY KEY (account, sha256, user_path)
    )`);
    this.insert = this.db.prepare(
      'INSERT OR REPLACE INTO content (account, sha256, user_path, size, mtime_ms) VALUES (?, ?, ?, ?, ?)',
    );
    this.select = this.db.prepare(
      'SELECT user_path AS userPath, size, mtime_ms AS mtimeMs FROM content WHERE account = ? AND sha256 = ? LIMIT 20',
    );
    this.del = this.db.prepare('DELETE FROM content WHERE account = ? AND sha256 = ? AND user_path = ?');
  }

  record(account: string, sha256: string, f: IndexedFile) {
    this.insert.run(account, sha256, f.userPath, f.size, f.mtimeMs);
  }

  candidates(account: string, sha256: string): IndexedFile[] {
    return this.select.all(account, sha256) as IndexedFile[];
  }

  forget(account: string, sha256: string, userPath: string) {
    this.del.run(account, sha256, userPath);
  }

  close() {
    this.db.close();
  }
}
