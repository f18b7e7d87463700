// Every error is a JSON `{error, message}` with the right status: a request that fails its schema
// is 400 naming the fields, a wrong content type 415, other client errors as fastify raised them,
// an unknown path 404. Our own fault is 500 without detail (logged, never with the body).
import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import type { ErrorObject } from 'ajv';
import { formatError } from '../api/validate.js';
import { parentOfRequest } from './parent-of.js';

export interface ErrorBody {
  error: string;
  message: string;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

export function errorBody(status: number, message: string): ErrorBody {
  return { error: STATUS_TEXT[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request'), message };
}

function validationMessage(error: FastifyError): string {
  const errors: ErrorObject[] = error.validation ?? [];
  const context = error.validationContext ?? 'body';
  const shown = errors.slice(0, 5).map((e) => formatError(context, e));
  const more = errors.length > shown.length ? ` (and ${errors.length - shown.length} more)` : '';
  return `invalid request: ${shown.join('; ')}${more}`;
}

/** What is logged of an error of ours: its type, code and stack frames; not its message. */
export function withoutValues(error: unknown): { type: string; code?: string; stack?: string } {
  const type = error instanceof Error ? error.constructor.name : typeof error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack.split('\n').filter((line) => /^\s+at /.test(line)).join('\n') : undefined;
  return { type, ...(code ? { code } : {}), ...(stack ? { stack } : {}) };
}

/** How long the rest of a refused body is read before the 413 (a slower client gets it then, and the close). */
export const DRAIN_MS = 10_000;

/** Resolves once `stream` ended, failed or closed, or after `ms`; what it reads is dropped. */
function drained(stream: NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean }, ms: number): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stream.removeListener('end', done);
      stream.removeListener('error', done);
      stream.removeListener('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    stream.on('end', done);
    stream.on('error', done);
    stream.on('close', done);
    stream.resume();
  });
}

export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler(async (error: FastifyError, request, reply) => {
      if (error.validation) {
        return reply.code(400).send(errorBody(400, validationMessage(error)));
      }
      const status = error.statusCode ?? 500;
      if (status === 415) {
        const type = String(request.headers['content-type'] ?? 'none');
        return reply.code(415).send(errorBody(415, `unsupported content-type "${type}": hooks take application/json`));
      }
      if (status === 413) {
        // The connection closes after a 413 with the rest of the body unread, so a client still
        // writing it got EPIPE or a reset instead of the answer: the rest is read (and dropped,
        // nothing kept) first, for at most DRAIN_MS.
        await drained(request.raw, DRAIN_MS);
        return reply.code(413).header('connection', 'close').send(errorBody(413, error.message));
      }
      if (status >= 400 && status < 500) {
        return reply.code(status).send(errorBody(status, error.message));
      }
      // Our own fault: log it (never the body, never the error's message: an error raised while
      // handling a request may quote what it held, a secret included), answer without detail. The
      // line names the parent, as every line of a hook call does (parent-of.ts: Kubernetes names only).
      const parent = parentOfRequest(request);
      request.log.error(parent === undefined ? { err: withoutValues(error) } : { parent, err: withoutValues(error) }, 'hook failed');
      return reply.code(500).send(errorBody(500, 'internal error while computing the hook response; see the server log'));
    });
    app.setNotFoundHandler((request, reply) => reply.code(404).send(errorBody(404, `no route for ${request.method} ${request.url.split('?')[0]}`)));
  },
  { name: 'c5c3-errors' },
);
