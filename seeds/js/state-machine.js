// A traffic light / door state machine driven by a switch statement.

var State = {
  CLOSED: 'closed',
  OPENING: 'opening',
  OPEN: 'open',
  CLOSING: 'closing',
  LOCKED: 'locked'
};

function transition(state, event) {
  switch (state) {
    case State.CLOSED:
      switch (event) {
        case 'open': return State.OPENING;
        case 'lock': return State.LOCKED;
        default: break;
      }
      break;
    case State.OPENING:
      if (event === 'done') {
        return State.OPEN;
      } else if (event === 'close') {
        return State.CLOSING;
      }
      break;
    case State.OPEN:
      if (event === 'close') return State.CLOSING;
      break;
    case State.CLOSING:
      if (event === 'done') return State.CLOSED;
      if (event === 'obstacle') return State.OPENING;
      break;
    case State.LOCKED:
      if (event === 'unlock') return State.CLOSED;
      break;
    default:
      throw new Error('unknown state: ' + state);
  }
  return state;
}

function Machine(initial) {
  this.state = initial;
  this.history = [initial];
  this.hooks = {};
}

Machine.prototype.on = function (state, fn) {
  this.hooks[state] = fn;
  return this;
};

Machine.prototype.send = function (event) {
  var prev = this.state;
  var next = transition(prev, event);
  if (next !== prev) {
    this.state = next;
    this.history.push(next);
    if (this.hooks.hasOwnProperty(next)) {
      this.hooks[next].call(this, prev, event);
    }
  }
  return this;
};

var door = new Machine(State.CLOSED);
door.on(State.OPEN, function (prev) {
  console.log('door is open (was ' + prev + ')');
}).on(State.LOCKED, function () {
  console.log('locked!');
});

var events = ['open', 'done', 'close', 'obstacle', 'done', 'close', 'done', 'lock', 'open', 'unlock'];
for (var i = 0; i < events.length; i++) {
  door.send(events[i]);
}
console.log(door.history.join(' -> '));
