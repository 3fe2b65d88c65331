// Node-style callback code: sequencing, retries, and error handling.

function readConfig(name, callback) {
  setTimeout(function () {
    if (name.indexOf('missing') !== -1) {
      callback(new Error('ENOENT: ' + name));
      return;
    }
    callback(null, '{"retries": 3, "delay": 10, "name": "' + name + '"}');
  }, 5);
}

function parseJson(text, callback) {
  var result;
  try {
    result = JSON.parse(text);
  } catch (err) {
    callback(err);
    return;
  } finally {
    console.log('parse attempted (' + text.length + ' chars)');
  }
  callback(null, result);
}

function series(tasks, done) {
  var results = [];
  var index = 0;
  function next(err, value) {
    if (err) {
      done(err, results);
      return;
    }
    if (index > 0) {
      results.push(value);
    }
    if (index === tasks.length) {
      done(null, results);
      return;
    }
    var task = tasks[index++];
    try {
      task(next);
    } catch (e) {
      done(e, results);
    }
  }
  next(null);
}

function retry(times, delay, fn, callback) {
  var attempt = 0;
  (function tryOnce() {
    attempt++;
    fn(function (err, value) {
      if (err && attempt < times) {
        console.log('attempt ' + attempt + ' failed: ' + err.message);
        setTimeout(tryOnce, delay * attempt);
        return;
      }
      callback(err, value, attempt);
    });
  })();
}

var flaky = 0;
function unreliable(cb) {
  flaky += 1;
  if (flaky < 3) {
    cb(new Error('try again'));
  } else {
    cb(null, 'ok after ' + flaky);
  }
}

series([
  function (cb) { readConfig('app.json', cb); },
  function (cb) { parseJson('{"a": [1, 2]}', cb); },
  function (cb) { retry(5, 2, unreliable, cb); }
], function (err, results) {
  if (err) {
    console.error('series failed:', err.message);
    return;
  }
  console.log('series results:', results);
});

readConfig('missing.json', function (err, text) {
  try {
    if (err) throw err;
    console.log(text);
  } catch (e) {
    console.log('caught', e instanceof Error, e.message);
  } finally {
    console.log('cleanup done');
  }
});

parseJson('{not json', function (err) {
  console.log(err ? 'bad json: ' + err.name : 'unexpected success');
});
