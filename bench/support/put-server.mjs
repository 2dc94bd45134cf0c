// The upload baseline: one streamed HTTP PUT written straight to a file on the same disk.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.env.PUT_DIR;
fs.mkdirSync(dir, { recursive: true });
const server = http.createServer(async (req, res) => {
  try {
    await pipeline(req, fs.createWriteStream(path.join(dir, path.basename(req.url))));
    res.end('ok');
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
