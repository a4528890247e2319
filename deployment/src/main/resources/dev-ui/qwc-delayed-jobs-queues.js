import { QwcHotReloadElement, html, css } from 'qwc-hot-reload-element';
import { JsonRpc } from 'jsonrpc';
import { notifier } from 'notifier';
import { columnBodyRenderer } from '@vaadin/grid/lit.js';
import '@vaadin/grid';
import '@vaadin/button';
import '@vaadin/icon';
import '@vaadin/text-field';
import '@vaadin/combo-box';
import '@vaadin/progress-bar';
import 'qui-badge';

/** How long the page waits for an answer: a failed (re)start of the application leaves calls unanswered. */
const ANSWER_TIMEOUT_MS = 30000;

function answered(promise) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('The application did not answer within '
            + ANSWER_TIMEOUT_MS / 1000 + ' s: is it running? A failed start after a live reload shows its error'
            + ' on the application\'s pages and in the terminal.')), ANSWER_TIMEOUT_MS);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The notifier renders its message as HTML, and a job id is any text. */
function escape(text) {
    return String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

/**
 * The queues of the application with their figures, a job lookup by queue and id with a Cancel button, and the dead
 * letters of each queue with a Requeue button. Every failed call (a bad queue name, Redis down) is shown in the page.
 */
export class QwcDelayedJobsQueues extends QwcHotReloadElement {

    jsonRpc = new JsonRpc(this);

    static DEAD_LETTER_LIMIT = 100;

    static styles = css`
        :host {
            display: flex;
            flex-direction: column;
            gap: 18px;
            padding: 10px 20px 20px 20px;
        }
        h3 {
            margin: 0;
            font-size: var(--lumo-font-size-l);
            font-weight: 600;
        }
        h4 {
            margin: 8px 0 4px 0;
            font-size: var(--lumo-font-size-m);
        }
        .bar {
            display: flex;
            align-items: center;
            gap: 12px;
            flex-wrap: wrap;
        }
        .muted {
            color: var(--lumo-contrast-60pct);
            font-size: var(--lumo-font-size-s);
        }
        .error {
            color: var(--lumo-error-text-color);
            background: var(--lumo-error-color-10pct);
            border-radius: var(--lumo-border-radius-m);
            padding: 8px 12px;
            white-space: pre-wrap;
            font-size: var(--lumo-font-size-s);
        }
        .cell-error {
            color: var(--lumo-error-text-color);
            white-space: normal;
        }
        .number {
            font-variant-numeric: tabular-nums;
        }
        code, pre {
            font-size: var(--lumo-font-size-s);
        }
        pre {
            margin: 0;
            white-space: pre-wrap;
            word-break: break-all;
        }
        .job {
            display: grid;
            grid-template-columns: max-content 1fr;
            gap: 4px 16px;
            padding: 10px 12px;
            border: 1px solid var(--lumo-contrast-10pct);
            border-radius: var(--lumo-border-radius-m);
            max-width: 900px;
        }
        .job .key {
            font-weight: 600;
        }
        .wrap {
            white-space: normal;
            overflow-wrap: anywhere;
        }
    `;

    static properties = {
        _overview: { state: true },
        _refreshedAt: { state: true },
        _loading: { state: true },
        _error: { state: true },
        _deadLetters: { state: true },
        _findQueue: { state: true },
        _findId: { state: true },
        _found: { state: true },
        _finding: { state: true },
    };

    constructor() {
        super();
        this._overview = null;
        this._refreshedAt = null;
        this._loading = false;
        this._error = null;
        this._deadLetters = new Map();
        this._findQueue = '';
        this._findId = '';
        this._found = undefined;
        this._generation = 0;
    }

    connectedCallback() {
        super.connectedCallback();
        this._refresh();
    }

    hotReload() {
        this._refresh();
    }

    render() {
        return html`
            ${this._error ? html`<div class="error">${this._error}</div>` : ''}
            ${this._renderQueues()}
            ${this._renderFind()}
            ${this._renderDeadLetters()}
        `;
    }

    _renderQueues() {
        const overview = this._overview;
        return html`
            <div class="bar">
                <h3>Queues</h3>
                <vaadin-button theme="small" @click=${() => this._refresh()} ?disabled=${this._loading}>
                    <vaadin-icon icon="font-awesome-solid:rotate" slot="prefix"></vaadin-icon>
                    Refresh
                </vaadin-button>
                ${overview ? html`<span class="muted">
                    Workers ${overview.workers ? 'run' : 'do not run'} in this instance
                    (quarkus.delayed-jobs.enabled=${overview.workers}); Redis keys start with
                    <code>${overview.keyPrefix}</code>. Read at ${this._refreshedAt.toLocaleTimeString()}.
                </span>` : ''}
            </div>
            ${this._loading && !overview ? html`<vaadin-progress-bar indeterminate></vaadin-progress-bar>` : ''}
            ${overview && overview.queues.length === 0
                ? html`<span class="muted">This application has no @Delayed handler and no queue configured under
                    quarkus.delayed-jobs.queues. Find a job of any queue below.</span>`
                : ''}
            ${overview && overview.queues.length > 0 ? this._queueGrid(overview.queues, true) : ''}
            ${this._renderOtherQueues()}
        `;
    }

    /** A table of queues with their figures; {@code withHandler}: with the column of the handler here. */
    _queueGrid(queues, withHandler) {
        return html`
            <vaadin-grid .items=${queues} all-rows-visible theme="row-stripes wrap-cell-content">
                <vaadin-grid-column header="Queue" auto-width flex-grow="0"
                    ${columnBodyRenderer(q => html`<code>${q.name}</code>`, [])}></vaadin-grid-column>
                ${withHandler ? html`<vaadin-grid-column header="Handler here" flex-grow="2"
                    ${columnBodyRenderer(q => this._handler(q), [])}></vaadin-grid-column>` : ''}
                <vaadin-grid-column header="Pending" auto-width flex-grow="0" text-align="end"
                    ${columnBodyRenderer(q => this._figure(q, q.pending), [])}></vaadin-grid-column>
                <vaadin-grid-column header="Running" auto-width flex-grow="0" text-align="end"
                    ${columnBodyRenderer(q => this._figure(q, q.running), [])}></vaadin-grid-column>
                <vaadin-grid-column header="Dead" auto-width flex-grow="0" text-align="end"
                    ${columnBodyRenderer(q => this._figure(q, q.dead), [])}></vaadin-grid-column>
                <vaadin-grid-column header="Next due" flex-grow="1"
                    ${columnBodyRenderer(q => this._nextDue(q), [])}></vaadin-grid-column>
                <vaadin-grid-column header="Lag" auto-width flex-grow="0" text-align="end"
                    ${columnBodyRenderer(q => q.error ? '' : this._duration(q.lagMillis), [])}></vaadin-grid-column>
            </vaadin-grid>`;
    }

    /** The application's queues, then the others found in Redis. */
    _allQueues() {
        return [...this._overview.queues, ...this._overview.otherQueues];
    }

    /** The queues in Redis that this application does not know: a renamed or removed queue keeps its jobs there. */
    _renderOtherQueues() {
        const overview = this._overview;
        if (!overview || (overview.otherQueues.length === 0 && !overview.otherQueuesError)) {
            return '';
        }
        return html`
            <h4>Other queues in Redis</h4>
            <span class="muted">Found under <code>${overview.keyPrefix}</code>, with no handler and no settings in this
                application: a renamed or removed queue, or one of another application with the same key prefix. No
                worker of this application runs their jobs.</span>
            ${overview.otherQueuesError
                ? html`<div class="error">Redis could not be searched for them: ${overview.otherQueuesError}</div>` : ''}
            ${overview.otherQueues.length > 0 ? this._queueGrid(overview.otherQueues, false) : ''}
        `;
    }

    _handler(queue) {
        if (!queue.handler) {
            return html`<span class="muted">none in this application</span>`;
        }
        const cron = queue.cron
            ? html`<qui-badge small><span>cron ${queue.cron} (${queue.timeZone ?? 'UTC'})</span></qui-badge>
                ${queue.nextOccurrenceAt
                    ? html`<span class="muted">next ${this._time(queue.nextOccurrenceAt)}</span>`
                    : queue.scheduleError
                        ? html`<span class="cell-error">schedule not read: ${queue.scheduleError}</span>`
                        : html`<span class="muted">not armed</span>`}`
            : '';
        // The package would take most of the column: it goes on a line of its own.
        const hash = queue.handler.indexOf('#');
        const dot = queue.handler.lastIndexOf('.', hash);
        return html`<code>${queue.handler.substring(dot + 1)}</code> ${cron}
            <div class="muted">${queue.handler.substring(0, Math.max(dot, 0))}</div>`;
    }

    _figure(queue, value) {
        return queue.error ? '' : html`<span class="number">${value}</span>`;
    }

    _nextDue(queue) {
        if (queue.error) {
            return html`<span class="cell-error">${queue.error}</span>`;
        }
        return queue.nextDueAt ? this._time(queue.nextDueAt) : html`<span class="muted">none pending</span>`;
    }

    _renderFind() {
        const names = this._overview ? this._allQueues().map(q => q.name) : [];
        return html`
            <h3>Find a job</h3>
            <div class="bar">
                <vaadin-combo-box label="Queue" allow-custom-value .items=${names} .value=${this._findQueue}
                    @value-changed=${e => this._findQueue = e.detail.value || ''}></vaadin-combo-box>
                <vaadin-text-field label="Job id" clear-button-visible .value=${this._findId}
                    @value-changed=${e => this._findId = e.detail.value || ''}
                    @keydown=${e => { if (e.key === 'Enter') this._find(); }}></vaadin-text-field>
                <vaadin-button theme="primary" style="align-self: flex-end" @click=${() => this._find()}>
                    <vaadin-icon icon="font-awesome-solid:magnifying-glass" slot="prefix"></vaadin-icon>
                    Find
                </vaadin-button>
            </div>
            ${this._renderFound()}
        `;
    }

    _renderFound() {
        if (this._finding) {
            return html`<vaadin-progress-bar indeterminate></vaadin-progress-bar>`;
        }
        if (this._found === undefined) {
            return '';
        }
        if (this._found.job === null) {
            const blanks = this._found.id !== this._found.id.trim();
            return html`<span class="muted">No job with id <code style="white-space: pre">'${this._found.id}'</code> in queue
                <code>${this._found.queue}</code>.${blanks ? ' The id starts or ends with blanks, which are part of it.' : ''}</span>`;
        }
        const job = this._found.job;
        return html`
            <div class="job">
                <span class="key">State</span>
                <span><qui-badge small level=${this._level(job.state)}><span>${job.state}</span></qui-badge></span>
                <span class="key">Queue</span><code>${job.queue}</code>
                <span class="key">Id</span><code>${job.id}</code>
                <span class="key">Due</span><span>${this._time(job.dueAt)}</span>
                <span class="key">Attempts</span><span>${job.attempts}</span>
                <span class="key">Last error</span>
                <span>${job.lastError ? html`<pre>${job.lastError}</pre>` : html`<span class="muted">none</span>`}</span>
                <span class="key">Payload</span><pre>${job.payload ?? 'null'}</pre>
                <span class="key">Cron</span>
                <span>${job.cron ? html`<code>${job.cron}</code>` : html`<span class="muted">not recurring</span>`}</span>
                <span></span>
                <span class="bar">
                    <vaadin-button theme="error" @click=${() => this._cancel(job)}>
                        <vaadin-icon icon="font-awesome-solid:trash" slot="prefix"></vaadin-icon>
                        Cancel
                    </vaadin-button>
                    ${job.state === 'DEAD' ? html`
                        <vaadin-button @click=${() => this._requeue(job)}>
                            <vaadin-icon icon="font-awesome-solid:arrow-rotate-left" slot="prefix"></vaadin-icon>
                            Requeue
                        </vaadin-button>` : ''}
                </span>
            </div>
        `;
    }

    _renderDeadLetters() {
        const all = this._overview ? this._allQueues() : [];
        const queues = all.filter(q => q.dead > 0);
        const unread = all.filter(q => q.error).length;
        return html`
            <h3>Dead letters</h3>
            ${this._overview && queues.length === 0 && unread === 0
                ? html`<span class="muted">No dead letters.</span>` : ''}
            ${unread > 0 ? html`<span class="muted">Not known for the queues whose figures could not be read.</span>` : ''}
            ${queues.map(q => this._renderDeadLettersOf(q))}
        `;
    }

    _renderDeadLettersOf(queue) {
        const letters = this._deadLetters.get(queue.name);
        const header = html`<h4><code>${queue.name}</code>: ${queue.dead} dead
            ${queue.dead > QwcDelayedJobsQueues.DEAD_LETTER_LIMIT
                ? html`<span class="muted">(the newest ${QwcDelayedJobsQueues.DEAD_LETTER_LIMIT} listed)</span>` : ''}</h4>`;
        if (letters === undefined) {
            return html`${header}<vaadin-progress-bar indeterminate></vaadin-progress-bar>`;
        }
        if (letters.error) {
            return html`${header}<div class="error">${letters.error}</div>`;
        }
        return html`${header}
            <vaadin-grid .items=${letters.jobs} all-rows-visible theme="row-stripes wrap-cell-content">
                <vaadin-grid-column header="Id" auto-width flex-grow="0"
                    ${columnBodyRenderer(job => html`<code>${job.id}</code>`, [])}></vaadin-grid-column>
                <vaadin-grid-column header="Attempts" auto-width flex-grow="0" text-align="end"
                    ${columnBodyRenderer(job => html`<span class="number">${job.attempts}</span>`, [])}></vaadin-grid-column>
                <vaadin-grid-column header="Last error" flex-grow="2"
                    ${columnBodyRenderer(job => html`<span class="wrap">${job.lastError ?? ''}</span>`, [])}></vaadin-grid-column>
                <vaadin-grid-column header="Payload" flex-grow="1"
                    ${columnBodyRenderer(job => html`<code class="wrap">${job.payload ?? 'null'}</code>`, [])}></vaadin-grid-column>
                <vaadin-grid-column header="" auto-width flex-grow="0"
                    ${columnBodyRenderer(job => html`
                        <vaadin-button theme="small" @click=${() => this._requeue(job)}>
                            <vaadin-icon icon="font-awesome-solid:arrow-rotate-left" slot="prefix"></vaadin-icon>
                            Requeue
                        </vaadin-button>`, [])}></vaadin-grid-column>
            </vaadin-grid>`;
    }

    _refresh() {
        // An action refreshes while an earlier refresh may still be on its way: only the latest one is shown.
        const generation = ++this._generation;
        this._loading = true;
        return answered(this.jsonRpc.queues())
            .then(response => {
                if (generation !== this._generation) {
                    return;
                }
                this._overview = response.result;
                this._refreshedAt = new Date();
                this._error = null;
                if (!this._findQueue && this._overview.queues.length > 0) {
                    this._findQueue = this._overview.queues[0].name;
                }
                this._loadDeadLetters(generation);
            })
            .catch(failure => {
                if (generation === this._generation) {
                    this._fail('Could not list the queues', failure);
                }
            })
            .finally(() => {
                if (generation === this._generation) {
                    this._loading = false;
                }
            });
    }

    /** The letters of an older refresh, a requeued one among them, must not replace those of a later one. */
    _loadDeadLetters(generation) {
        const loaded = new Map();
        const queues = this._allQueues().filter(q => q.dead > 0);
        this._deadLetters = loaded;
        queues.forEach(q => answered(this.jsonRpc.deadLetters({ queue: q.name, limit: QwcDelayedJobsQueues.DEAD_LETTER_LIMIT }))
            .then(response => loaded.set(q.name, { jobs: response.result }))
            .catch(failure => loaded.set(q.name, { error: this._message(failure) }))
            .finally(() => {
                if (generation === this._generation) {
                    this._deadLetters = new Map(loaded);
                }
            }));
    }

    /** Looks a job up: the one the form names, or the one given (the job just requeued, whatever the form says now). */
    _find(queue = this._findQueue.trim(), id = this._findId) {
        // A frozen Redis holds the answer for up to redis-timeout: the page shows that it is waiting.
        this._finding = true;
        answered(this.jsonRpc.find({ queue: queue, id: id }))
            .then(response => {
                this._found = { queue: queue, id: id, job: response.result ?? null };
                this._error = null;
            })
            .catch(failure => {
                this._found = undefined;
                this._fail('Could not find the job', failure);
            })
            .finally(() => this._finding = false);
    }

    _cancel(job) {
        answered(this.jsonRpc.cancel({ queue: job.queue, id: job.id }))
            .then(response => {
                if (response.result) {
                    notifier.showSuccessMessage(`Cancelled ${escape(job.id)} of ${job.queue}`);
                } else {
                    notifier.showWarningMessage(`${job.queue} has no job ${escape(job.id)} any more`);
                }
                this._found = { queue: job.queue, id: job.id, job: null };
                this._refresh();
            })
            .catch(failure => this._fail(`Could not cancel ${job.id}`, failure));
    }

    _requeue(job) {
        answered(this.jsonRpc.requeue({ queue: job.queue, id: job.id }))
            .then(response => {
                if (response.result) {
                    notifier.showSuccessMessage(`Requeued ${escape(job.id)} of ${job.queue}: due now`);
                } else {
                    notifier.showWarningMessage(`${job.queue} has no dead letter ${escape(job.id)} any more`);
                }
                if (this._found && this._found.job && this._found.job.id === job.id
                        && this._found.job.queue === job.queue) {
                    this._find(job.queue, job.id);
                }
                this._refresh();
            })
            .catch(failure => this._fail(`Could not requeue ${job.id}`, failure));
    }

    _fail(what, failure) {
        this._error = `${what}: ${this._message(failure)}`;
    }

    /** A rejected JSON-RPC call carries the server's error; anything else is a failure of the page itself. */
    _message(failure) {
        if (failure && failure.error && failure.error.message) {
            // The rule alone, as the docs quote it: without the JSON-RPC layer's "Method [...] failed: ".
            return failure.error.message.replace(/^Method \[[^\]]*\] failed: /, '');
        }
        return String(failure);
    }

    _level(state) {
        switch (state) {
            case 'DEAD': return 'error';
            case 'RUNNING': return 'warning';
            default: return 'success';
        }
    }

    _time(iso) {
        const at = new Date(iso);
        return html`<span title=${iso}>${at.toLocaleString()}
            <span class="muted">(${this._relative(at.getTime() - Date.now())})</span></span>`;
    }

    _relative(millis) {
        const text = this._duration(Math.abs(millis));
        return millis >= 0 ? `in ${text}` : `${text} ago`;
    }

    _duration(millis) {
        if (millis < 1000) return `${millis} ms`;
        const seconds = millis / 1000;
        if (seconds < 60) return `${seconds.toFixed(1)} s`;
        const minutes = seconds / 60;
        if (minutes < 60) return `${minutes.toFixed(1)} min`;
        const hours = minutes / 60;
        if (hours < 48) return `${hours.toFixed(1)} h`;
        return `${(hours / 24).toFixed(1)} d`;
    }
}
customElements.define('qwc-delayed-jobs-queues', QwcDelayedJobsQueues);
