/**
 * HTTP-date (RFC 9110 section 5.6.7), read strictly and always as GMT: the preferred IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient must still accept, RFC 850
 * (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). `Date.parse` is no substitute: it
 * reads an asctime date (which carries no zone) in the local time zone, and it turns fragments such as `Mon, 1` into
 * a date of 2001, which a Retry-After would take as "retry at once".
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY_NAME = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})';

/** The three forms. The IMF-fixdate's day has two digits; one is taken too, since it cannot be misread. */
const FORMS = [
  new RegExp(`^${DAY_NAME}, (?<day>\\d{1,2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY_NAME}, (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`),
  new RegExp(`^${DAY_NAME} ${MONTH} (?<day> \\d|\\d{2}) ${TIME} (?<year>\\d{4})$`),
];

/**
 * The instant (ms since the epoch) of an HTTP-date, or null when `text` is not one (another zone, a day the month
 * does not have, hour 24, a fragment). `now` places a two-digit RFC 850 year: one that would be more than 50 years
 * ahead is the most recent past year with those digits, as RFC 9110 asks. The day name is not checked against the
 * date (RFC 9110 does not ask a recipient to).
 */
export function parseHttpDate(text: string, now: Date): number | null {
  const groups = FORMS.map((form) => form.exec(text)?.groups).find((g) => g !== undefined);
  if (groups === undefined) return null;
  const month = MONTHS.indexOf(groups.month ?? '');
  const day = Number(groups.day);
  const hour = Number(groups.hour);
  const minute = Number(groups.minute);
  const second = Number(groups.second);
  let year = Number(groups.year);
  if (groups.year?.length === 2) {
    const thisYear = now.getUTCFullYear();
    year += thisYear - (thisYear % 100);
    if (year > thisYear + 50) year -= 100;
  }
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  // Second 60 is a leap second (RFC 9110 allows it); Date.UTC reads it as the next second.
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return null;
  return Date.UTC(year, month, day, hour, minute, second);
}
