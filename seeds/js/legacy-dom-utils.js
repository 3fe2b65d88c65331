/*
 * Legacy browser-style utilities written in ES5, exercised against a fake
 * document so that they run anywhere.
 */
var fakeDocument = {
  elements: {},
  getElementById: function (id) { return this.elements[id] || null; },
  createElement: function (tag) {
    return {
      tagName: tag.toUpperCase(), className: '', style: {}, children: [], attributes: {},
      handlers: {},
      appendChild: function (child) { this.children.push(child); child.parentNode = this; return child; },
      setAttribute: function (k, v) { this.attributes[k] = String(v); },
      getAttribute: function (k) { return k in this.attributes ? this.attributes[k] : null; },
      addEventListener: function (type, fn) { (this.handlers[type] = this.handlers[type] || []).push(fn); }
    };
  }
};

var dom = (function (doc, undefined) {
  var hasClassRe = {};

  function classRe(name) {
    return hasClassRe[name] || (hasClassRe[name] = new RegExp('(^|\\s)' + name + '(\\s|$)'));
  }

  function hasClass(el, name) {
    return classRe(name).test(el.className);
  }

  function addClass(el, name) {
    if (!hasClass(el, name)) {
      el.className = el.className ? el.className + ' ' + name : name;
    }
    return el;
  }

  function removeClass(el, name) {
    el.className = el.className.replace(classRe(name), ' ').replace(/^\s+|\s+$/g, '');
    return el;
  }

  function css(el, styles) {
    for (var prop in styles) {
      if (!styles.hasOwnProperty(prop)) continue;
      var value = styles[prop];
      el.style[prop] = typeof value === 'number' && !/opacity|zIndex/.test(prop) ? value + 'px' : value;
    }
    return el;
  }

  function build(tag, attrs, children) {
    var el = doc.createElement(tag), key, i;
    attrs = attrs || {};
    for (key in attrs) {
      if (key === 'class') addClass(el, attrs[key]);
      else if (key.indexOf('on') === 0) el.addEventListener(key.slice(2), attrs[key]);
      else el.setAttribute(key, attrs[key]);
    }
    children = children === undefined ? [] : [].concat(children);
    for (i = 0; i < children.length; i++) {
      el.appendChild(typeof children[i] === 'string' ? { text: children[i] } : children[i]);
    }
    return el;
  }

  function trigger(el, type, data) {
    var list = el.handlers[type], i = 0;
    if (!list) return false;
    while (i < list.length) list[i++].call(el, { type: type, target: el, data: data });
    return true;
  }

  return { hasClass: hasClass, addClass: addClass, removeClass: removeClass, css: css, build: build, trigger: trigger };
})(fakeDocument);

var clicks = 0;
var button = dom.build('button', { 'class': 'btn primary', id: 'go', onclick: function (e) { clicks++; dom.addClass(this, 'clicked'); } }, 'Go!');
var panel = dom.build('div', { 'class': 'panel' }, [button, dom.build('span', null, ['a', 'b'])]);
dom.css(panel, { width: 200, opacity: 0.5, display: 'block' });
dom.trigger(button, 'click');
dom.trigger(button, 'click');
dom.removeClass(button, 'primary');
console.log(button.className, clicks, panel.style.width, panel.style.opacity, panel.children.length);
console.log(button.getAttribute('id'), button.getAttribute('title'), void 0 === undefined, delete panel.style.display);
