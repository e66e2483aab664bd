// src/message/request-fields/ owns the request's fields as a person writes them, read and checked before
// src/message/request.ts builds the request: the whole request given with --input (whole-request.ts) and
// the `validity` field's time or duration (validity.ts).
//
// The whole request given with --input: the API's fields only (docs/api.md: "Request fields"; unknown fields are refused, so a
// typo cannot silently drop a field), all optional because flags complete it.
import { z } from 'zod';

const keyValuesSchema = z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]));

/** A whole request given with --input: the API's fields only, all optional (flags complete it). */
export const InputRequestSchema = z.strictObject({
  accountReference: z.string().optional(),
  name: z.string().optional(),
  characterSet: z.string().optional(),
  channel: z.string().optional(),
  from: z.string().optional(),
  validity: z.string().optional(),
  messageType: z.string().optional(),
  body: z.strictObject({ text: z.string().optional(), templateId: z.string().optional() }).optional(),
  recipients: z
    .array(z.strictObject({ msisdn: z.string(), variables: keyValuesSchema.optional(), metaData: keyValuesSchema.optional() }))
    .optional(),
  addressBook: z.strictObject({ contacts: z.array(z.strictObject({ id: z.string().min(1) })) }).optional(),
  metaData: keyValuesSchema.optional(),
});
export type InputRequest = z.infer<typeof InputRequestSchema>;
