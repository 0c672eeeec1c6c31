/**
 * Awkward but server-valid values for export's round-trip properties: strings YAML (1.1 or 1.2) or a hand-written
 * parser may read as something else, and numbers at the edges of a double.
 */
import fc from 'fast-check';

/** Strings that look like YAML nulls, booleans, numbers, dates, indicators, comments, anchors, tags or documents. */
export const AWKWARD_STRINGS: readonly string[] = [
  'yes',
  'no',
  'No',
  'on',
  'off',
  'y',
  'n',
  'null',
  'Null',
  '~',
  'true',
  'False',
  '0x10',
  '0o17',
  '017',
  '007',
  '1e3',
  '1_000',
  '12:30',
  '1:2:3',
  '.inf',
  '-.inf',
  '.nan',
  '+15555550100',
  '-1',
  '0',
  '0.0',
  '1.',
  '.5',
  '2026-01-01',
  'a: b',
  'a #b',
  '#ops',
  '*star',
  '&anchor',
  '!tag',
  '%pct',
  '@at',
  '`tick`',
  "'single'",
  '"double"',
  'trailing ',
  ' leading',
  'two  spaces',
  'tab\there',
  'line\nbreak',
  'ünïcødé',
  '日本語',
  '🚨 alert',
  '- dash',
  '? q',
  '| pipe',
  '> gt',
  '[x]',
  '{y}',
  'a,b',
  '\\back',
  '=',
  '<<',
  '---',
  '...',
  'x'.repeat(300),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text itself is the case (an interpolation look-alike)
  '${HOME}',
  '$(x)',
  'a\u00a0b',
];

/**
 * A non-empty string: one of the awkward ones, printable ASCII, graphemes or any code points. Never one ending with a
 * line break: the format refuses free text so ended (a block scalar's unseen newline), so export leaves such a config
 * out, with its reason (a test of its own).
 */
export const awkwardString = fc
  .oneof(
    fc.constantFrom(...AWKWARD_STRINGS),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
  )
  .filter((s) => !/[\r\n]$/.test(s));

/** An address the schema's (and Ops Manager's) pattern accepts: no `@` or white space in either part. */
export const awkwardEmail = fc
  .tuple(awkwardString, awkwardString)
  .map(([a, b]) => `${a.replace(/[@\s]/g, '') || 'x'}@${b.replace(/[@\s]/g, '') || 'y'}`);

/** Metric names (upper case, digits, `_`) including YAML look-alikes. */
export const awkwardMetricName = fc.oneof(
  fc.constantFrom('CONNECTIONS', 'NULL', 'TRUE', 'Y', 'NO', 'E1', 'X_1E3'),
  fc.stringMatching(/^[A-Z][A-Z0-9_]{0,30}$/),
);

/** Finite doubles: tiny, huge, 2^53, negative, integer and fractional. */
export const awkwardNumber = fc.oneof(
  fc.constantFrom(0.1, 1e-7, 2 ** 53, -(2 ** 53), -5, 0, 1e21, 1.5e300, 5e-324, 123456789.123, -0.000001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A matcher on a free-text field (TYPE_NAME takes only roles), with an awkward value. */
export const awkwardMatcher = fc.record({
  fieldName: fc.constantFrom('HOSTNAME', 'REPLICA_SET_NAME', 'CLUSTER_NAME', 'SHARD_NAME', 'HOSTNAME_AND_PORT'),
  operator: fc.constantFrom('EQUALS', 'CONTAINS', 'STARTS_WITH', 'REGEX'),
  value: awkwardString,
});

/** Notifications addressed by awkward text; the secret fields hold `token` (a mask when read back, a value to send). */
export function awkwardNotification(token: string) {
  return fc.oneof(
    fc.record({
      typeName: fc.constant('EMAIL'),
      emailAddress: awkwardEmail,
      delayMin: fc.nat(10_000),
      intervalMin: fc.integer({ min: 5, max: 100_000 }),
    }),
    awkwardString.map((mobileNumber) => ({ typeName: 'SMS', mobileNumber })),
    awkwardString.map((username) => ({ typeName: 'USER', username })),
    awkwardString.map((channelName) => ({ typeName: 'SLACK', channelName, apiToken: token })),
    awkwardString.map((roomName) => ({ typeName: 'HIPCHAT', roomName, notificationToken: token })),
  );
}

/** An alert config body with a metric threshold or a threshold, awkward matchers and notifications. */
export function awkwardAlertBody(token: string) {
  const notifications = fc.array(awkwardNotification(token), { minLength: 1, maxLength: 3 });
  const matchers = fc.array(awkwardMatcher, { maxLength: 3 });
  const operator = fc.constantFrom('GREATER_THAN', 'LESS_THAN');
  return fc.oneof(
    fc.record({
      eventTypeName: fc.constant('OUTSIDE_METRIC_THRESHOLD'),
      enabled: fc.boolean(),
      metricThreshold: fc.record({
        metricName: awkwardMetricName,
        operator,
        threshold: awkwardNumber,
        units: fc.constantFrom('RAW', 'GIGABYTES'),
        mode: fc.constant('AVERAGE'),
      }),
      matchers,
      notifications,
    }),
    fc.record({
      eventTypeName: fc.constant('TOO_FEW_HEALTHY_MEMBERS'),
      enabled: fc.boolean(),
      threshold: fc.record({ operator, threshold: awkwardNumber }),
      matchers,
      notifications,
    }),
  );
}
