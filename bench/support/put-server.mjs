// The upload baseline: one streamed HTTP PUT written straight to a file on the same disk. Without PUT_DIR it
// reads and drops the bytes: the socket alone, the floor of any transfer between two processes.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.env.PUT_DIR;
if (dir) fs.mkdirSync(dir, { recursive: true });
const server = http.createServer(async (req, res) => {
  try {
    if (dir) await pipeline(req, fs.createWriteStream(path.join(dir, path.basename(req.url))));
    else for await (const piece of req) void piece;
    res.end('ok');
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
