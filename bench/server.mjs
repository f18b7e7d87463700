// The server under benchmark: the production server plus two routes that exist only here —
// POST /bench/echo parses the body like a hook route and serialises it back (the JSON floor),
// GET /bench/rss reports this process's resident set size.
import { buildServer } from '../dist/server.js';

const app = await buildServer({ logger: false, overload: { maxEventLoopDelayMs: 0 } });
app.post('/bench/echo', async (request) => request.body);
app.get('/bench/rss', async () => ({ rss: process.memoryUsage().rss }));
await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: app.server.address().port });
process.on('disconnect', () => app.close().then(() => process.exit(0)));
