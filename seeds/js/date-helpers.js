// Date helpers: formatting, parsing, arithmetic and relative time.

var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
var DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
var MS_PER_DAY = 24 * 60 * 60 * 1000;

function two(n) {
  return n < 10 ? '0' + n : '' + n;
}

function isLeapYear(year) {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year, month) {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
}

function format(date, pattern) {
  var tokens = {
    YYYY: date.getUTCFullYear(),
    MM: two(date.getUTCMonth() + 1),
    MMM: MONTHS[date.getUTCMonth()],
    DD: two(date.getUTCDate()),
    ddd: DAYS[date.getUTCDay()],
    HH: two(date.getUTCHours()),
    mm: two(date.getUTCMinutes()),
    ss: two(date.getUTCSeconds())
  };
  return pattern.replace(/YYYY|MMM|MM|DD|ddd|HH|mm|ss/g, function (t) { return tokens[t]; });
}

function parseIso(text) {
  var m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?Z?)?$/.exec(text);
  if (!m) {
    return null;
  }
  var year = +m[1], month = +m[2] - 1, day = +m[3];
  if (month > 11 || day < 1 || day > daysInMonth(year, month)) {
    return null;
  }
  return new Date(Date.UTC(year, month, day, +(m[4] || 0), +(m[5] || 0), +(m[6] || 0)));
}

function addDays(date, n) {
  return new Date(date.getTime() + n * MS_PER_DAY);
}

function addMonths(date, n) {
  var y = date.getUTCFullYear(), m = date.getUTCMonth() + n;
  y += Math.floor(m / 12);
  m = ((m % 12) + 12) % 12;
  var d = Math.min(date.getUTCDate(), daysInMonth(y, m));
  return new Date(Date.UTC(y, m, d, date.getUTCHours(), date.getUTCMinutes()));
}

function diffDays(a, b) {
  return Math.round((b - a) / MS_PER_DAY);
}

function relative(date, now) {
  var seconds = Math.round((now - date) / 1000);
  var future = seconds < 0;
  seconds = Math.abs(seconds);
  var units = [[60, 'second'], [60, 'minute'], [24, 'hour'], [30, 'day'], [12, 'month'], [Infinity, 'year']];
  var value = seconds, i = 0;
  while (i < units.length - 1 && value >= units[i][0]) {
    value = Math.floor(value / units[i][0]);
    i++;
  }
  var text = value + ' ' + units[i][1] + (value === 1 ? '' : 's');
  return future ? 'in ' + text : text + ' ago';
}

var start = parseIso('2024-01-31T09:30Z');
console.log(format(start, 'ddd, DD MMM YYYY HH:mm:ss'));
console.log(format(addMonths(start, 1), 'YYYY-MM-DD'), format(addDays(start, 366), 'YYYY-MM-DD'));
console.log(diffDays(start, parseIso('2024-12-25')), isLeapYear(1900), isLeapYear(2000));
console.log(parseIso('2023-02-29'), parseIso('nope'));
console.log(relative(start, addDays(start, 3)), relative(addDays(start, 45), start));
