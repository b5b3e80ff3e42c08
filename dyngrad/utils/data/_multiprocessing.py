"""The DataLoader iterator that fetches in worker processes (Note [DataLoader workers] in
_worker.py): the main process's side.

Tasks get consecutive numbers as they are sent (``send_idx``) and are yielded in that order
(``rcvd_idx``): a batch that arrives early waits in ``task_info``. At most ``prefetch_factor``
tasks per worker are outstanding; each yielded batch sends the next index. Workers take tasks in
turn (round-robin over those still active), as torch's do.
"""
from __future__ import annotations

import itertools
import multiprocessing
import queue

from . import _worker

_STATUS_CHECK_INTERVAL = 5.0   # seconds between liveness checks while waiting for a batch


class MultiProcessingDataLoaderIter(_worker.BaseIter):
    """One pass over a DataLoader with ``num_workers > 0``; a persistent one is reused by the
    loader for every epoch (``_reset``)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._timeout = loader.timeout
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._persistent_workers = loader.persistent_workers
        self._in_order = loader.in_order
        context = loader.multiprocessing_context
        if context is None:
            context = multiprocessing.get_context()
        elif isinstance(context, str):
            context = multiprocessing.get_context(context)
        self._data_queue = context.Queue()
        self._done_event = context.Event()   # set when the workers are shut down
        self._index_queues = []
        self._workers = []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            w = context.Process(
                target=_worker.worker_loop,
                args=(self._dataset, self._iterable, index_queue, self._data_queue,
                      self._done_event, self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, loader.worker_init_fn, worker_id, self._num_workers),
                daemon=True)
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._shutdown = False
        self._reset(loader, first_iter=True)

    # -- epochs ----------------------------------------------------------------------------
    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._send_idx = 0          # the number the next task sent gets
        self._rcvd_idx = 0          # the number of the next task to yield
        self._task_info = {}        # task -> (worker,) while outstanding, (worker, data) early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:   # persistent workers: start their next epoch, wait for them all
            for q in self._index_queues:
                q.put(_worker._ResumeIteration())
            waiting = self._num_workers
            while waiting:
                idx, _ = self._get_data()
                if isinstance(idx, _worker._ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # -- sending ---------------------------------------------------------------------------
    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):   # the next worker still active, if any
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                if self._in_order or self._workers_num_tasks[worker_id] < \
                        max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    # -- receiving -------------------------------------------------------------------------
    def _get_data(self):
        """The next (task, data) from any worker; torch's errors for a timeout or a worker
        that died."""
        if self._timeout > 0:
            try:
                return self._data_queue.get(timeout=self._timeout)
            except queue.Empty:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") \
                    from None
        while True:
            try:
                return self._data_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                # (a worker told to stop, its iterable dataset exhausted, has exited rightly)
                dead = [w for w, active in zip(self._workers, self._workers_status)
                        if active and not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                       "unexpectedly") from None

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable:
            _worker.warn_if_past_length(self)
        return data

    def _next_data(self):
        while True:
            # skip the tasks of workers that ended their iterable dataset without answering
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:   # it arrived early
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._iterable and isinstance(data, _worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    return self._process_data(data, self._task_info.pop(idx)[0])
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    # -- shutting down ---------------------------------------------------------------------
    def _mark_worker_as_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()   # (Note [Leaving the result queue] in _worker.py)
        for worker_id, q in enumerate(self._index_queues):
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=_STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()
        self._data_queue.cancel_join_thread()
        self._data_queue.close()

    def __del__(self):
        if not getattr(self, "_shutdown", True):
            try:
                self._shutdown_workers()
            except Exception:  # noqa: BLE001 -- at interpreter exit (the workers are daemons)
                pass
