// A small todo-list model with classes.
'use strict';

let nextId = 1;

class Todo {
  constructor(title, dueDate) {
    if (typeof title !== 'string' || title.trim() === '') {
      throw new TypeError('A todo needs a title');
    }
    this.id = nextId++;
    this.title = title.trim();
    this.done = false;
    this.dueDate = dueDate || null;
    this.tags = [];
  }

  toggle() {
    this.done = !this.done;
    return this;
  }

  addTag(tag) {
    if (this.tags.indexOf(tag) === -1) {
      this.tags.push(tag);
    }
    return this;
  }

  get overdue() {
    return !this.done && this.dueDate !== null && this.dueDate < Date.now();
  }

  toString() {
    const mark = this.done ? '[x]' : '[ ]';
    const tags = this.tags.length > 0 ? ` (${this.tags.join(', ')})` : '';
    return `${mark} #${this.id} ${this.title}${tags}`;
  }
}

class TodoList {
  constructor(name) {
    this.name = name;
    this.items = [];
    this.listeners = [];
  }

  static fromTitles(name, titles) {
    const list = new TodoList(name);
    titles.forEach(t => list.add(t));
    return list;
  }

  add(title, dueDate) {
    const todo = new Todo(title, dueDate);
    this.items.push(todo);
    this.notify('add', todo);
    return todo;
  }

  remove(id) {
    const index = this.items.findIndex(t => t.id === id);
    if (index < 0) {
      return false;
    }
    const removed = this.items.splice(index, 1)[0];
    this.notify('remove', removed);
    return true;
  }

  find(id) {
    for (const todo of this.items) {
      if (todo.id === id) {
        return todo;
      }
    }
    return null;
  }

  get remaining() {
    return this.items.filter(t => !t.done).length;
  }

  byTag(tag) {
    return this.items.filter(t => t.tags.indexOf(tag) !== -1);
  }

  clearCompleted() {
    const before = this.items.length;
    this.items = this.items.filter(t => !t.done);
    return before - this.items.length;
  }

  onChange(fn) {
    this.listeners.push(fn);
  }

  notify(kind, todo) {
    for (let i = 0; i < this.listeners.length; i++) {
      this.listeners[i](kind, todo);
    }
  }

  render() {
    const header = `${this.name} (${this.remaining} of ${this.items.length} left)`;
    const lines = this.items.map(t => '  ' + t.toString());
    return [header, ...lines].join('\n');
  }
}

const list = TodoList.fromTitles('Chores', ['Buy milk', 'Water plants', 'Call mom']);
list.onChange((kind, todo) => {
  console.log(`${kind}: ${todo.title}`);
});
list.add('Fix bike', Date.now() - 1000).addTag('outside').addTag('weekend');
list.find(2).toggle();
console.log(list.render());
console.log('overdue:', list.items.filter(t => t.overdue).map(t => t.title));
console.log('cleared', list.clearCompleted());
