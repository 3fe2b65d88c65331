/* Minimal event emitter with once(), off() and wildcard listeners. */
var EventEmitter = (function () {
  function EventEmitter() {
    this._events = {};
    this._maxListeners = 10;
  }

  EventEmitter.prototype.on = function (name, listener) {
    if (typeof listener !== 'function') {
      throw new TypeError('listener must be a function');
    }
    var list = this._events[name] || (this._events[name] = []);
    list.push(listener);
    if (list.length > this._maxListeners) {
      console.warn('possible memory leak: ' + list.length + ' listeners for "' + name + '"');
    }
    return this;
  };

  EventEmitter.prototype.once = function (name, listener) {
    var self = this;
    function wrapper() {
      self.off(name, wrapper);
      listener.apply(self, arguments);
    }
    wrapper.original = listener;
    return this.on(name, wrapper);
  };

  EventEmitter.prototype.off = function (name, listener) {
    var list = this._events[name];
    if (!list) {
      return this;
    }
    if (arguments.length < 2) {
      delete this._events[name];
      return this;
    }
    for (var i = list.length - 1; i >= 0; i--) {
      if (list[i] === listener || list[i].original === listener) {
        list.splice(i, 1);
        break;
      }
    }
    if (list.length === 0) {
      delete this._events[name];
    }
    return this;
  };

  EventEmitter.prototype.emit = function (name) {
    var args = Array.prototype.slice.call(arguments, 1);
    var list = this._events[name];
    var wild = this._events['*'];
    var fired = false;
    if (list) {
      list = list.slice();
      for (var i = 0; i < list.length; i++) {
        list[i].apply(this, args);
      }
      fired = true;
    }
    if (wild && name !== '*') {
      wild.slice().forEach(function (fn) {
        fn.apply(this, [name].concat(args));
      }, this);
    }
    return fired;
  };

  EventEmitter.prototype.listenerCount = function (name) {
    return name in this._events ? this._events[name].length : 0;
  };

  return EventEmitter;
})();

var bus = new EventEmitter();
var log = [];
bus.on('*', function (name) { log.push('any:' + name); });
bus.on('data', function (x) { log.push('data:' + x); });
bus.once('data', function (x) { log.push('first:' + x); });
bus.emit('data', 1);
bus.emit('data', 2);
bus.off('data');
bus.emit('data', 3);
console.log(log.join(' | '), bus.listenerCount('data'));
