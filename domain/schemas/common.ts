import { z } from 'zod';
import { isCalendarDate } from '../dates.js';

/** A real calendar date written YYYY-MM-DD. */
export const calendarDate = z
  .string({ error: 'must be a date string in YYYY-MM-DD form' })
  .refine(isCalendarDate, { message: 'must be a real calendar date in YYYY-MM-DD form' })
  .meta({ format: 'date' });

export const email = z
  .email({ error: 'must be a valid email address' })
  .max(254, 'must be at most 254 characters');

export const phone = z
  .string({ error: 'must be a string' })
  .regex(/^\+?[0-9]{10,15}$/, 'must be 10 to 15 digits with an optional leading +');

export const text = (max: number) =>
  z.string({ error: 'must be a string' }).trim().max(max, `must be at most ${max} characters`);

export const requiredText = (max: number) => text(max).min(1, 'is required');

/** A non-empty path or query identifier of bounded length. */
export const idParam = z.string().min(1, 'is required').max(64, 'is too long');
