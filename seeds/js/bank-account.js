// Bank accounts with classes, static members, getters and custom errors.

class InsufficientFunds extends Error {
  constructor(account, amount) {
    super(`account ${account.id} cannot pay ${amount}`);
    this.name = 'InsufficientFunds';
    this.shortfall = amount - account.balance;
  }
}

class Account {
  constructor(owner, opening = 0) {
    this.id = Account.nextId++;
    this.owner = owner;
    this._balance = 0;
    this.log = [];
    if (opening > 0) this.deposit(opening, 'opening balance');
  }

  static compare(a, b) {
    return b.balance - a.balance;
  }

  get balance() {
    return this._balance;
  }

  deposit(amount, memo = 'deposit') {
    if (!(amount > 0)) {
      throw new RangeError('deposit must be positive');
    }
    this._balance += amount;
    this.log.push({ type: 'credit', amount, memo });
    return this;
  }

  withdraw(amount, memo = 'withdrawal') {
    if (amount > this._balance) {
      throw new InsufficientFunds(this, amount);
    }
    this._balance -= amount;
    this.log.push({ type: 'debit', amount, memo });
    return this;
  }

  transfer(to, amount) {
    this.withdraw(amount, `transfer to #${to.id}`);
    to.deposit(amount, `transfer from #${this.id}`);
  }

  statement() {
    let running = 0;
    const lines = this.log.map(entry => {
      running += entry.type === 'credit' ? entry.amount : -entry.amount;
      const sign = entry.type === 'credit' ? '+' : '-';
      return `${entry.memo.padEnd(24)} ${sign}${entry.amount.toFixed(2).padStart(9)} ${running.toFixed(2).padStart(10)}`;
    });
    return [`Statement for ${this.owner} (#${this.id})`, ...lines].join('\n');
  }
}
Account.nextId = 1000;

class SavingsAccount extends Account {
  constructor(owner, opening, rate) {
    super(owner, opening);
    this.rate = rate;
  }

  addInterest(months = 1) {
    const interest = Math.round(this.balance * this.rate / 12 * months * 100) / 100;
    return interest > 0 ? this.deposit(interest, `interest ${months}m`) : this;
  }

  withdraw(amount, memo) {
    if (this.log.filter(e => e.type === 'debit').length >= 3) {
      throw new Error('savings accounts allow three withdrawals');
    }
    return super.withdraw(amount, memo);
  }
}

const alice = new Account('Alice', 500);
const bob = new SavingsAccount('Bob', 2000, 0.03);
alice.transfer(bob, 125.5);
bob.addInterest(6);
try {
  alice.withdraw(1000);
} catch (err) {
  if (err instanceof InsufficientFunds) {
    console.log(err.name, err.message, err.shortfall);
  } else {
    throw err;
  }
} finally {
  console.log([alice, bob].sort(Account.compare).map(a => a.owner).join(' > '));
}
console.log(alice.statement());
console.log(bob.statement());
