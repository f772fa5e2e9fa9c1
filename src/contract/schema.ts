// The JSON Schema keywords the engine generates values for, and a generated value that breaks one.
export interface Schema {
  $ref?: string;
  /** One type, or one type and 'null' (a nullable value). */
  type?: string | string[];
  format?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  exclusiveMinimum?: number | bigint;
  exclusiveMaximum?: number | bigint;
  multipleOf?: number | bigint;
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** A value that breaks one constraint, with the path (from the schema's root) of what it breaks. */
export interface BrokenValue {
  value: unknown;
  /** Property names from the root to the broken part; [] is the value itself. */
  path: string[];
  /** What was broken, for reading counter-examples. */
  rule: string;
  /** Set when the break is an unknown property: its name. */
  unknownField?: string;
  /** Set when the break is a missing required property: its name. */
  missingField?: string;
}
