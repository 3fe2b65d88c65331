// A job queue in today's style: no semicolons, class fields, private state, async methods.
'use strict'

const { EventEmitter } = require('node:events')

const DEFAULT_LIMIT = 4

class Job {
  static count = 0
  id = ++Job.count
  attempts = 0;
  #started = null
  #done = false

  constructor (name, run) {
    this.name = name
    this.run = run
  }

  get elapsed () {
    return this.#started === null ? 0 : Date.now() - this.#started
  }

  set started (value) {
    this.#started = value
  }

  get #label () {
    return `${this.name}#${this.id}`
  }

  set #state (done) {
    this.#done = done
  }

  async start () {
    this.#started = Date.now()
    this.attempts++
    try {
      const result = await this.run()
      this.#state = true
      return result
    } catch (err) {
      err.job = this.#label
      throw err
    }
  }

  isDone () {
    return this.#done && #done in this
  }

  static {
    Job.kinds = new Map()
  }
}

class Queue extends EventEmitter {
  #jobs = []
  #running = 0
  limit

  constructor ({ limit = DEFAULT_LIMIT } = {}) {
    super()
    this.limit = limit ?? DEFAULT_LIMIT
  }

  add (name, run) {
    const job = new Job(name, run)
    this.#jobs.push(job)
    this.#next()
    return job
  }

  * pending () {
    yield * this.#jobs
  }

  async * results () {
    for (const job of this.#jobs) {
      yield await job.start()
    }
  }

  #next () {
    if (this.#running >= this.limit) return
    const job = this.#jobs.shift()
    if (!job) {
      this.emit('drain')
      return
    }
    this.#running++
    job.start()
      .then((value) => this.emit('done', job?.name, value))
      .catch((err) => this.emit('error', err))
      .finally(() => {
        this.#running--
        this.#next()
      })
  }

  async #wait (ms) {
    await new Promise((resolve) => setTimeout(resolve, ms))
  }

  * #ids () {
    for (const job of this.#jobs) yield job.id
  }

  async drain () {
    while (this.#running > 0) {
      await this.#wait(10)
    }
    return [...this.#ids()]
  }
}

const queue = new Queue({ limit: 2 })
queue.options ||= {}
queue.options.retries ??= 3
queue.options.verbose &&= false
const size = 1_000
const big = 2n ** 64n
const when = /(?<hour>\d{2}):(?<minute>\d{2})/.exec('12:30')?.groups?.hour

module.exports = { Job, Queue, queue, size, big, when }
