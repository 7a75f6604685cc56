import { describe, expect, it } from 'vitest';
import { RpcError } from '../runtime/index.js';
import {
  BadDataError,
  ConflictError,
  HTTP_STATUS_BY_CODE,
  HttpError,
  InternalError,
  NotFoundError,
  NotImplementedError,
  TooManyRequestsError,
  UnauthorizedError,
  UnavailableError,
  toHttpError,
} from './errors.js';

describe('the error table', () => {
  it('maps each coded error class to its HTTP status', () => {
    expect(new BadDataError('x').status).toBe(400);
    expect(new UnauthorizedError('x').status).toBe(401);
    expect(new NotFoundError('x').status).toBe(404);
    expect(new ConflictError('x').status).toBe(409);
    expect(new TooManyRequestsError('x').status).toBe(429);
    expect(new InternalError('x').status).toBe(500);
    expect(new NotImplementedError('x').status).toBe(501);
    expect(new UnavailableError('x').status).toBe(503);
  });

  it('gives every code a distinct-purpose status in the 4xx/5xx range', () => {
    for (const [code, status] of Object.entries(HTTP_STATUS_BY_CODE)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
    }
  });

  it('keeps the code and message', () => {
    const err = new BadDataError('invalid mode "x"');
    expect(err.code).toBe('bad_data');
    expect(err.message).toBe('invalid mode "x"');
    expect(err).toBeInstanceOf(HttpError);
  });
});

describe('toHttpError', () => {
  it('passes our own errors through', () => {
    const err = new ConflictError('busy');
    expect(toHttpError(err)).toBe(err);
  });

  it('maps RPC errors from peers', () => {
    expect(toHttpError(new RpcError('unavailable', 'ingester down'))?.status).toBe(503);
    expect(toHttpError(new RpcError('invalid_argument', 'bad'))?.status).toBe(400);
    expect(toHttpError(new RpcError('resource_exhausted', 'limit'))?.status).toBe(429);
    expect(toHttpError(new RpcError('unimplemented', 'no'))?.status).toBe(501);
    expect(toHttpError(new RpcError('deadline_exceeded', 'slow'))?.message).toBe('slow');
  });

  it('maps exposed client errors of body parsers', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      status: 413,
      expose: true,
    });
    expect(toHttpError(tooLarge)?.status).toBe(413);
    const teapot = Object.assign(new Error('odd'), { status: 418, expose: true });
    expect(toHttpError(teapot)?.status).toBe(400);
  });

  it('leaves everything else unhandled', () => {
    expect(toHttpError(new Error('boom'))).toBeUndefined();
    expect(
      toHttpError(Object.assign(new Error('x'), { status: 500, expose: false })),
    ).toBeUndefined();
    expect(toHttpError('a string')).toBeUndefined();
  });
});
