"""libstdc++'s sorting algorithms and ATen's quick-select, replayed step by step in Python.

Note [Replaying torch's tie order]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Which of several equal elements torch reports (the index in ``topk``, ``mode``, ``kthvalue``,
``nanmedian`` of an all-NaN lane, ``sort(stable=False)`` of small dtypes) is whatever its CPU
kernel's algorithm leaves there: ``std::sort``, ``std::nth_element`` and ``std::partial_sort`` of
the libstdc++ torch's wheels are built with, or ATen's own Sedgewick quick-select (kthvalue).
Those are deterministic, so we replay them: the functions below make the same comparisons and
the same moves as the C++ originals. They rearrange a list ``a`` of positions and compare
``key[a[i]] < key[a[j]]``; callers pass keys that order exactly as torch's comparator does
(dense ranks of the values with NaN ranked last, negated for a descending order), since only
the comparisons' answers decide the moves.

Replaying costs Python time per element, so callers take it only for lanes where ties can show
(see sorting.py); elsewhere every correct algorithm gives the same answer and NumPy computes it.
Unstable sorts of int32/int64/float32/float64 are not replayed: torch runs x86-simd-sort there,
whose order of ties depends on the CPU (AVX2 or AVX-512).
"""
from __future__ import annotations

_THRESHOLD = 16   # libstdc++'s _S_threshold


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- insertion sort ------------------------------------------------------------------------------
def _linear_insert(a, key, last, floor):
    """__unguarded_linear_insert (stopping at ``floor``: C++ relies on a sentinel there)."""
    val = a[last]
    kv = key[val]
    nxt = last - 1
    while nxt >= floor and kv < key[a[nxt]]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, key, first, last):
    for i in range(first + 1, last):
        val = a[i]
        if key[val] < key[a[first]]:
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, key, i, first)


def _final_insertion_sort(a, key, first, last):
    if last - first > _THRESHOLD:
        _insertion_sort(a, key, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, key, i, first)
    else:
        _insertion_sort(a, key, first, last)


# -- heaps ---------------------------------------------------------------------------------------
def _adjust_heap(a, key, first, hole, length, value):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if key[a[first + second]] < key[a[first + second - 1]]:
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    kv = key[value]                   # (push_heap)
    parent = (hole - 1) // 2
    while hole > top and key[a[first + parent]] < kv:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, key, first, middle, last):
    length = middle - first                       # make_heap(first, middle)
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(a, key, first, parent, length, a[first + parent])
            if parent == 0:
                break
            parent -= 1
    if middle == first:
        return
    # the heap's top only decreases, so what is not below it now never enters: skip it
    top = key[a[first]]
    for i in [i for i in range(middle, last) if key[a[i]] < top]:
        if key[a[i]] < key[a[first]]:             # pop_heap(first, middle, i)
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, key, first, 0, length, value)


def _sort_heap(a, key, first, last):
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, key, first, 0, last - first, value)


# -- quicksort partitions ------------------------------------------------------------------------
def _unguarded_partition_pivot(a, key, first, last):
    mid = first + (last - first) // 2
    x, y, z = key[a[first + 1]], key[a[mid]], key[a[last - 1]]   # __move_median_to_first
    if x < y:
        pick = mid if y < z else (last - 1 if x < z else first + 1)
    elif x < z:
        pick = first + 1
    elif y < z:
        pick = last - 1
    else:
        pick = mid
    a[first], a[pick] = a[pick], a[first]
    pivot = key[a[first]]
    lo, hi = first + 1, last                      # __unguarded_partition(first + 1, last)
    end = len(a) - 1
    while True:
        while lo < end and key[a[lo]] < pivot:
            lo += 1
        hi -= 1
        while hi > 0 and pivot < key[a[hi]]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _introsort_loop(a, key, first, last, depth):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(a, key, first, last, last)     # std::__partial_sort(first, last, last)
            _sort_heap(a, key, first, last)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, key, first, last)
        _introsort_loop(a, key, cut, last, depth)
        last = cut


# -- the public algorithms -----------------------------------------------------------------------
def std_sort(a: list, key, first: int = 0, last: int | None = None) -> None:
    """``std::sort(a + first, a + last)`` in place, comparing ``key[a[i]] < key[a[j]]``."""
    last = len(a) if last is None else last
    if last - first > 1:
        _introsort_loop(a, key, first, last, 2 * _lg(last - first))
        _final_insertion_sort(a, key, first, last)


def std_nth_element(a: list, nth: int, key) -> None:
    """``std::nth_element(a, a + nth, a + len(a))`` in place (libstdc++'s introselect)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, key, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, key, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, key, first, last)


def std_partial_sort(a: list, middle: int, key) -> None:
    """``std::partial_sort(a, a + middle, a + len(a))`` in place (heap select + sort)."""
    _heap_select(a, key, 0, middle, len(a))
    _sort_heap(a, key, 0, middle)


def quick_select(a: list, k: int, key) -> None:
    """ATen's ``quick_select_template`` (Sedgewick's partition, median of three) in place;
    afterwards ``a[k]`` is what kthvalue reports. Its "gt_or_nan" is ``key[x] > key[y]``."""
    lo, hi = 0, len(a) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if key[a[lo]] > key[a[hi]]:
                a[lo], a[hi] = a[hi], a[lo]
            return
        mid = (lo + hi) >> 1
        a[mid], a[lo + 1] = a[lo + 1], a[mid]
        if key[a[lo + 1]] > key[a[hi]]:
            a[lo + 1], a[hi] = a[hi], a[lo + 1]
        if key[a[lo]] > key[a[hi]]:
            a[lo], a[hi] = a[hi], a[lo]
        if key[a[lo + 1]] > key[a[lo]]:
            a[lo + 1], a[lo] = a[lo], a[lo + 1]
        i, j = lo + 1, hi
        pivot = key[a[lo]]
        while True:
            i += 1
            while pivot > key[a[i]]:
                i += 1
            j -= 1
            while key[a[j]] > pivot:
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[lo], a[j] = a[j], a[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
