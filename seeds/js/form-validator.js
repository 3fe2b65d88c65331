// Declarative form validation with rule objects and regexes.

const rules = {
  required: (value) => value !== undefined && value !== null && String(value).trim() !== '' || 'is required',
  email: (value) => /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(value) || 'must be an email address',
  minLength: (n) => (value) => String(value).length >= n || `must be at least ${n} characters`,
  maxLength: (n) => (value) => String(value).length <= n || `must be at most ${n} characters`,
  pattern: (re, message) => (value) => re.test(value) || message,
  range: (min, max) => (value) => {
    const n = Number(value);
    return !isNaN(n) && n >= min && n <= max || `must be between ${min} and ${max}`;
  },
  sameAs: (field) => (value, all) => value === all[field] || `must match ${field}`,
};

const schema = {
  username: [rules.required, rules.minLength(3), rules.pattern(/^[a-z0-9_]+$/, 'may only contain a-z, 0-9 and _')],
  email: [rules.required, rules.email],
  age: [rules.range(13, 130)],
  password: [rules.required, rules.minLength(8), rules.pattern(/[A-Z]/, 'needs an upper-case letter'), rules.pattern(/\d/, 'needs a digit')],
  confirm: [rules.sameAs('password')],
  bio: [rules.maxLength(40)],
};

function validate(values, schema) {
  const errors = {};
  let valid = true;
  for (const field in schema) {
    const messages = [];
    for (const rule of schema[field]) {
      let result;
      try {
        result = rule(values[field], values);
      } catch (e) {
        result = `validator crashed: ${e.message}`;
      }
      if (result !== true) {
        messages.push(`${field} ${result}`);
        if (rule === rules.required) break;
      }
    }
    if (messages.length) {
      errors[field] = messages;
      valid = false;
    }
  }
  return { valid, errors };
}

const good = {
  username: 'grace_h',
  email: 'grace@navy.mil',
  age: '85',
  password: 'Cobol1959',
  confirm: 'Cobol1959',
  bio: 'Invented the compiler.',
};
const bad = Object.assign({}, good, {
  username: 'Gh',
  email: 'grace@',
  age: 'old',
  confirm: 'cobol',
  bio: 'x'.repeat(41),
});

console.log(validate(good, schema));
const report = validate(bad, schema);
Object.keys(report.errors).forEach(field => {
  report.errors[field].forEach(msg => console.log(' - ' + msg));
});
