"""CPU cores, idle states (C-states), frequency governors and threads.

The full account: docs/model.md, "Inside the model", `cephsim.model.components.cpu`.
"""

from __future__ import annotations

import math
from typing import Final

from mypy_extensions import i64

from cephsim.model.engine.kernel import ACC_CPU, ACC_QUEUE, ACC_WAKE
from cephsim.model.resolve import CPUConfig

ONDEMAND_PERIOD_NS = 10_000_000
#: cpufreq_ondemand's up_threshold on a kernel with idle micro-accounting (NO_HZ, every
#: distribution's): MICRO_FREQUENCY_UP_THRESHOLD 95 (drivers/cpufreq/cpufreq_ondemand.c)
ONDEMAND_UP_THRESHOLD = 0.95
#: cpufreq_conservative's: DEF_FREQUENCY_UP_THRESHOLD 80
CONSERVATIVE_UP_THRESHOLD = 0.80
#: intel_pstate in active mode without HWP: get_target_pstate() at most every 10 ms
#: (INTEL_PSTATE_SAMPLING_INTERVAL), target = 1.25 x the turbo P-state x busy_frac, where
#: busy_frac = MPERF / TSC: C0 time, polling idle included (drivers/cpufreq/intel_pstate.c)
INTEL_PSTATE_PERIOD_NS = 10_000_000
#: HWP (intel_pstate powersave) and CPPC (amd-pstate-epp) at the default balance_performance
#: EPP: the processor picks the clock itself.  Its algorithm is not published; what is
#: measured: it re-evaluates once per control loop, 5 ms at EPP 80-133 (0x80 = 128; 2 ms at
#: EPP 2-39), steps up only on loop boundaries, and keeps its operating point through idle
#: gaps shorter than a loop (an 842 us sleep dropped it in ~3 % of tests) (D. Smythies,
#: linux-pm "cpufreq: intel_pstate: HWP mode issue", 2020-06-30 / 07-08); from idle it
#: reaches its top clock in "just over 5 ms" (Chips and Cheese, 2022).  So: a core that ran
#: in the previous loop runs at the held point, one idle for a whole loop at the minimum
#: until the next boundary.
HWP_LOOP_NS = 5_000_000
#: the held point, as a share of the performance governor's clock: on Xeon Scalable "going
#: from P-State powersave to performance was 11% faster" (Phoronix, Core i9-11900K P-State
#: review); on Sapphire Rapids at EPP 0x80 the gap was 25-37 % for several workloads, ~12 %
#: at its EPP 32 (S. Pandruvada, linux-pm 2023-02-21).  Aggregate benchmark gaps, not a
#: clock measured at qd=1: an estimate
HWP_HELD = 1.0 / 1.11
#: governors that read the hardware's C0 residency (MPERF, or HWP itself): a core that
#: polls when idle (idle=poll, cpu_dma_latency=0) looks busy to them
HARDWARE_GOVERNORS = ("intel_pstate", "hwp")
#: cpufreq_conservative's defaults (drivers/cpufreq/cpufreq_conservative.c): below 20 %
#: load a step down, above 80 % a step up, a step being 5 % of the maximum clock
CONSERVATIVE_DOWN_THRESHOLD = 0.20
CONSERVATIVE_FREQ_STEP = 0.05
PELT_HALF_LIFE_NS = 32_000_000
#: how often the package's power management re-evaluates the boost ceiling (AMD's
#: Precision Boost and Intel's PCU both work on about a millisecond)
PACKAGE_WINDOW_NS = 1_000_000


#: The menu cpuidle governor (drivers/cpuidle/governors/menu.c, Linux 6.1; the kernel's
#: default wherever it is built, rating 20 against teo's 19).  The scheduler tick: HZ=250
#: (Debian's and most distributions' CONFIG_HZ), 4 ms.
MENU_TICK_NS: Final = 4_000_000
#: menu's MAX_INTERESTING (50 ms).  Also the time to the next timer event the model takes
#: for every idle CPU (an estimate: no timer wake-ups are modelled): the prediction from
#: the correction factor is then a running mean of the idle periods, capped there.
MENU_NEXT_TIMER_NS: Final = 50_000_000
#: menu_update(): "if (data->tick_wakeup && data->next_timer_ns > TICK_NSEC) measured_ns =
#: 9 * MAX_INTERESTING / 10" (a tick ended the idle period: "the CPU could have been idle
#: long (but not forever)")
MENU_TICK_WAKE_NS: Final = 45_000_000
#: get_typical_interval(): the mean of the last 8 idle periods counts when "stddev <= 20
#: us, variance <= 400 us^2" or "avg > 6*stddev"
MENU_VARIANCE_NS2: Final = 400 * 1000 * 1000


#: the idle states in which an Intel core still counts as active for the turbo ratio limits:
#: "a core is considered 'active' if it is in the C0 or C1 state; cores in the C3 or C6
#: state are considered 'inactive'" (Intel white paper 320354, Turbo Boost, 2008)
INTEL_ACTIVE_IDLE = frozenset({"POLL", "C1", "C1E"})


def holds_all_core(cfg: CPUConfig) -> bool:
    """Whether every core of a package counts as active for the boost ceiling, idle or
    not: cores that poll never leave C0; Intel cores allowed no state deeper than C1E
    count as active in C1 (the turbo ratio limits by active-core count)."""
    if polls(cfg):
        return True
    return (cfg.model.vendor == "intel" and bool(cfg.cstates)
            and all(s.name in INTEL_ACTIVE_IDLE for s in cfg.cstates))


def polls(cfg: CPUConfig) -> bool:
    """Whether idle cores poll (the only idle state allowed is POLL: idle=poll,
    cpu_dma_latency=0, max_cstate POLL): they never leave C0."""
    return bool(cfg.cstates) and all(s.name == "POLL" for s in cfg.cstates)


class Package:
    """One socket's processor package: the boost ceiling set by how many of its cores are busy."""

    __slots__ = ("all_core_hz", "busy", "busy_ns", "cap_clock", "cap_hz", "carry", "drop", "edge",
                 "all_active", "hz_ns", "max_hz", "per_clock", "per_socket", "win")

    def __init__(self, cfg: CPUConfig) -> None:
        self.max_hz = cfg.max_hz
        self.all_core_hz = cfg.all_core_hz or cfg.max_hz  # 0: no all-core figure, no drop
        #: whether the ceiling can fall at all (False: Thread.run skips the package)
        self.drop = self.all_core_hz < self.max_hz
        self.per_socket = cfg.model.cores
        self.per_clock = cfg.model.per_clock_speed
        self.win = 0
        self.edge = PACKAGE_WINDOW_NS  #: end of the current window
        self.busy = 0  #: busy physical-core time (ns) in the current window
        self.carry = 0  #: busy time already scheduled past its end (the next window's)
        self.cap_hz = self.max_hz
        self.cap_clock = self.max_hz * self.per_clock  #: ceiling x per-clock speed
        self.busy_ns = 0  #: all busy physical-core time, and the ceiling it ran under:
        self.hz_ns = 0.0  #: sum of cap_hz x busy ns (mean ceiling = hz_ns / busy_ns)
        #: idle cores that poll stay in C0 and draw power ("idle=poll ... reduces turbo
        #: headroom", kernel-parameters.txt), and Intel counts C1 cores as active: the chip
        #: holds only its all-core clock
        self.all_active = holds_all_core(cfg)
        if self.drop and self.all_active:
            self.cap_hz = self.all_core_hz
            self.cap_clock = self.cap_hz * self.per_clock

    def roll(self, w: int) -> None:
        """Window ``w`` begins: set its ceiling from the busy cores of the window before."""
        if w == self.win + 1:
            active = self.busy / PACKAGE_WINDOW_NS
            self.busy = self.carry
        else:  # a window without work in between: the chip has been idle
            active = 0.0
            self.busy = 0
        self.carry = 0
        n = self.per_socket
        x = (active - 1.0) / (n - 1) if n > 1 else float(active > 1.0)
        x = 1.0 if self.all_active else 0.0 if x < 0.0 else 1.0 if x > 1.0 else x
        self.cap_hz = self.max_hz - (self.max_hz - self.all_core_hz) * x
        self.cap_clock = self.cap_hz * self.per_clock
        self.win = w
        self.edge = (w + 1) * PACKAGE_WINDOW_NS

    def add(self, start: int, end: int) -> None:
        """A physical core is busy from ``start`` to ``end`` (``start`` in the current window
        or, for a run scheduled out of order, before it)."""
        edge = self.edge
        if end > edge:  # the part past the window counts in the next one
            self.carry += end - (start if start > edge else edge)
            self.busy += edge - start if edge > start else 0
        else:
            self.busy += end - start
        self.busy_ns += end - start
        self.hz_ns += (end - start) * self.cap_hz


class Core:
    """One logical CPU (a hardware thread; the whole core when SMT is off)."""

    __slots__ = ("busy_until", "freq_hz", "gap_end", "gap_start", "index", "iv_ptr", "iv_sq",
                 "iv_sum", "ivals", "owner", "package", "predicted", "req_k", "req_p", "sibling",
                 "util", "util_t", "win", "win_busy")

    def __init__(self, index: int, freq_hz: float, package: Package) -> None:
        self.index = index
        self.package = package  #: the socket this core is on
        self.sibling: Core | None = None  #: the other hardware thread of this core (SMT)
        self.owner: Thread | None = None  #: the thread of the latest run here
        self.busy_until = -(10**12)  #: idle "forever" at start: deepest state
        #: the idle gap left before the latest run, when that run was booked ahead (a
        #: thread's queued work): later hand-offs due inside it may still run there
        self.gap_start = 0
        self.gap_end = 0
        self.freq_hz = freq_hz
        self.win = -2  #: the governor's latest sampling window (none yet: not the one before 0)
        self.win_busy = 0
        self.util = 0.0
        self.util_t = 0
        #: the menu governor's history: its last 8 idle periods (ns; 0 = none yet), their sum
        #: and sum of squares (kept as the ring changes, so a prediction costs a few integer
        #: operations), and its running-mean prediction, which starts at the next timer
        #: (correction factor 1).  64-bit integers (i64: mypyc's machine integers, plain ints
        #: in pure Python): periods are at most MENU_NEXT_TIMER_NS, so no product passes
        #: 8 x (5e7)^2 = 2e16, while mypyc's own ints take a slow path for any product of
        #: operands over 2^31 (a nanosecond period squared)
        self.ivals = [0] * 8
        self.iv_ptr = 0
        self.iv_sum: i64 = 0
        self.iv_sq: i64 = 0
        self.predicted: i64 = MENU_NEXT_TIMER_NS
        #: the governor's prediction and choice from this history (what it asks for when
        #: it next goes idle), kept once computed: its own wake and its sibling's read it
        #: (req_k -1: not computed since the history last changed)
        self.req_p: i64 = 0
        self.req_k = -1

    def set_intervals(self, ivals: list[int]) -> None:
        """Replace the governor's last 8 idle periods (the ring and its sums)."""
        self.ivals = list(ivals)
        self.iv_sum = i64(sum(self.ivals))
        self.iv_sq = i64(sum(v * v for v in self.ivals))
        self.req_k = -1

    def set_predicted(self, predicted: int) -> None:
        """Replace the governor's running-mean prediction (its choice is computed again)."""
        self.predicted = predicted
        self.req_k = -1


def menu_predict(core: Core) -> i64:
    """menu's predicted idle time: its running mean, or the typical interval of the last
    8 periods when they agree (get_typical_interval: the largest dropped, every copy of
    it, while more than 6 are left).  From the ring's sums: the variance about the
    floored mean is sum v^2 - 2 avg sum v + n avg^2, exactly (integers), over n."""
    n: i64 = 8
    total = core.iv_sum
    sq = core.iv_sq
    limit: i64 = 0  # the largest period dropped so far (0: none)
    while True:
        if total == 0:  # no period but zeros: nothing learnt yet
            return core.predicted
        avg = total // n
        var = (sq - 2 * avg * total + n * avg * avg) // n
        if (avg * avg > 36 * var and n >= 6) or var <= MENU_VARIANCE_NS2:
            return avg if avg < core.predicted else core.predicted
        if n <= 6:
            return core.predicted
        top: i64 = 0
        c: i64 = 0
        for x in core.ivals:
            v = i64(x)
            if limit == 0 or v < limit:
                if v > top:
                    top = v
                    c = 1
                elif v == top:
                    c += 1
        limit = top
        n -= c
        total -= c * top
        sq -= c * top * top


def menu_update(core: Core, period: i64) -> None:
    """The measured period (capped at the next timer) enters the running mean with
    weight 1/8 (the correction factor's DECAY) and the ring of the last 8."""
    measured = period if period < MENU_NEXT_TIMER_NS else i64(MENU_NEXT_TIMER_NS)
    core.predicted += (measured - core.predicted) // 8
    ptr = core.iv_ptr
    old = i64(core.ivals[ptr])
    core.ivals[ptr] = measured
    core.iv_sum += measured - old
    core.iv_sq += measured * measured - old * old
    core.iv_ptr = (ptr + 1) & 7
    core.req_k = -1


class CoreSet:
    """Cores shared by a set of threads, with their power management."""

    __slots__ = ("cfg", "cores", "governor", "name", "per_clock", "residencies", "penalties",
                 "max_hz", "min_hz", "threads", "hits", "fixed_clock", "deepest_res",
                 "deepest_pen", "deepest_hits", "n_physical", "smt", "smt_stretch", "packages",
                 "exits", "menu", "deepest_k")

    def __init__(self, name: str, cfg: CPUConfig, n_cores: int,
                 sockets: list[Package] | None = None, first: int = 0) -> None:
        """``n_cores`` physical cores, each with ``cfg.threads_per_core`` logical CPUs: the
        host's physical cores ``first`` .. ``first + n_cores - 1``, on the host's ``sockets``
        (one :class:`Package` each, shared with its other core sets; by default one socket
        of their own)."""
        self.name = name
        self.cfg = cfg
        if sockets is None:
            sockets = [Package(cfg)]
        per = cfg.model.cores
        home = [sockets[min(len(sockets) - 1, (first + i) // per)] for i in range(n_cores)]
        self.packages = list(dict.fromkeys(home))  #: every socket these cores are on, in order
        self.governor = cfg.governor
        self.max_hz = cfg.max_hz
        self.min_hz = min(cfg.min_hz, cfg.max_hz)
        self.per_clock = cfg.model.per_clock_speed
        start_hz = self.max_hz if self.governor == "performance" else self.min_hz
        self.n_physical = n_cores
        self.smt = cfg.threads_per_core > 1
        #: extra time per ns of solo work run side by side with the sibling (each thread
        #: then runs at smt_yield / 2 of its solo speed: 1 / 0.625 - 1 = 0.6)
        self.smt_stretch = 2.0 / cfg.smt_yield - 1.0
        self.cores = [Core(i, start_hz, home[i % n_cores])
                      for i in range(n_cores * cfg.threads_per_core)]
        if self.smt:
            for i in range(n_cores):
                a, b = self.cores[i], self.cores[i + n_cores]
                a.sibling, b.sibling = b, a
        self.threads: list[Thread] = []  #: threads running on these cores (they register)
        # shallowest-first lists for the idle-state choice
        self.residencies = [s.target_residency_ns for s in cfg.cstates]
        self.penalties = [s.wake_penalty_ns for s in cfg.cstates]
        self.exits = [s.exit_latency_ns for s in cfg.cstates]  #: declared, as the governor reads them
        #: the menu governor chooses the states (else the idle period's real length does)
        self.menu = cfg.idle_governor == "menu" and len(cfg.cstates) > 1
        self.hits = [0] * len(cfg.cstates)  #: wake-ups per state, except the deepest
        # Thread.run handles the common cases itself, with these (same values as the
        # general code): the ``f * per_clock`` product of a fixed-clock governor, and
        # the deepest allowed state, which every core idle at least its residency is in.
        fixed = {"performance": self.max_hz, "powersave": self.min_hz}.get(self.governor)
        if self.governor in HARDWARE_GOVERNORS and polls(cfg):
            fixed = self.max_hz  # every idle moment is C0 to the hardware: the core looks busy
        self.fixed_clock = None if fixed is None else fixed * self.per_clock
        self.deepest_res = self.residencies[-1]
        self.deepest_pen = self.penalties[-1]
        self.deepest_hits = 0
        self.deepest_k = len(cfg.cstates) - 1  #: index of the deepest allowed state

    @property
    def package(self) -> Package:
        """The socket of the set's first core."""
        return self.packages[0]

    # ------------------------------------------------------------- statistics
    # Derived when asked rather than counted on every run (Thread.run is the hot path).
    @property
    def busy_ns(self) -> int:
        """Busy time of all cores (every run is accounted to exactly one thread)."""
        return sum(th.busy_ns for th in self.threads)

    @property
    def state_hits(self) -> list[int]:
        """Wake-ups from each allowed idle state, shallowest first."""
        return [*self.hits[:-1], self.hits[-1] + self.deepest_hits]

    @property
    def wakes(self) -> int:
        return sum(self.state_hits)

    @property
    def wake_ns(self) -> int:
        return sum(h * p for h, p in zip(self.state_hits, self.penalties))

    # ------------------------------------------------------------- idle states
    def wake_penalty(self, idle_ns: int) -> int:
        """Penalty of waking a core that has been idle for ``idle_ns``, in the state an ideal
        governor picks: the deepest whose target residency fits the idle period."""
        res = self.residencies
        k = len(res) - 1
        while k > 0 and res[k] > idle_ns:
            k -= 1
        self.hits[k] += 1
        return self.penalties[k]

    def menu_wake(self, core: Core, since: int, idle_ns: int, cap: int) -> int:
        """Penalty of waking ``core``, idle since ``since`` for ``idle_ns``, from the state the
        menu governor chose when it went idle (menu_select), and what the period teaches
        it (menu_update).  With the tick kept (a prediction under one tick) a tick inside
        the period wakes the CPU and the governor chooses again.  ``cap``: the state the
        core's other hardware thread asked for (the deepest state when it has none): the
        processor puts the core in the shallower of the two ("Hardware coordinates C-states
        requests by SMT siblings, choosing the shallowest for the core", Intel's pepc
        documentation), so the wake costs that state's exit; the governor learns from the
        state it chose itself."""
        t0: i64 = since
        left: i64 = idle_ns
        while True:
            k = self._menu_choice(core)
            p = core.req_p
            if p >= MENU_TICK_NS:  # the tick is stopped: the CPU sleeps until woken
                break
            to_tick: i64 = MENU_TICK_NS - t0 % MENU_TICK_NS
            k = self._before_tick(k, to_tick)
            if left <= to_tick:
                break
            menu_update(core, MENU_TICK_WAKE_NS)  # the tick ended this period
            t0 += to_tick
            left -= to_tick
        ex = i64(self.exits[k])
        menu_update(core, left - ex if left > 2 * ex else left // 2)
        if cap < k:
            k = cap
        self.hits[k] += 1
        return self.penalties[k]

    def requested(self, cpu: Core, now: int) -> int:
        """The idle state an idle logical CPU asked for when it went idle (at its busy_until),
        as menu chose it then: its history has not changed since (it learns when it wakes).
        When it kept the tick and ``now`` is past that tick, the tick woke it and it chose
        again with a history the model updates only at its own next wake: unknown here, so
        no limit (the deepest state) rather than a guess."""
        k = self._menu_choice(cpu)
        if cpu.req_p < MENU_TICK_NS:
            since: i64 = cpu.busy_until
            to_tick: i64 = MENU_TICK_NS - since % MENU_TICK_NS
            if now - since > to_tick:
                return self.deepest_k
            k = self._before_tick(k, to_tick)
        return k

    def _before_tick(self, k: int, to_tick: i64) -> int:
        """With the tick kept, the state menu returns: the chosen one, or the deepest
        shallower one whose target residency fits before the tick (menu_select: "the
        target residency of the state to be returned is not within the time until the
        next timer event including the tick, so try to correct that")."""
        res = self.residencies
        while k > 0 and res[k] > to_tick:
            k -= 1
        return k

    def _menu_choice(self, core: Core) -> int:
        """The state menu picks from ``core``'s history as it stands (its prediction in
        ``core.req_p``), computed once per history."""
        k = core.req_k
        if k < 0:
            core.req_p = menu_predict(core)
            k = self._menu_select(core.req_p)
            core.req_k = k
        return k

    def _menu_select(self, predicted: i64) -> int:
        """The deepest state whose target residency and exit latency fit the prediction (the
        exit latency limit: the prediction, with no task waiting on I/O on the CPU); the
        first state being POLL, a physical state is used if its exit latency fits."""
        res = self.residencies
        exits = self.exits
        k = 0
        for i in range(1, len(res)):
            if exits[i] > predicted:
                break
            if res[i] > predicted:
                if i == 1 and res[0] == 0 and exits[0] == 0:  # POLL first: use C1 anyway
                    k = 1
                break
            k = i
        return k

    # ------------------------------------------------------------- frequency
    def frequency(self, core: Core, t: int, thread: Thread) -> float:
        g = self.governor
        if g == "performance":
            return self.max_hz
        if g == "powersave":
            return self.min_hz
        if g == "schedutil":
            if thread.iowait:
                return self.max_hz
            util = max(self._pelt(core, t), self._pelt(thread, t))
            return min(self.max_hz, max(self.min_hz, 1.25 * self.max_hz * util))
        if g == "hwp":  # the processor's control loop: held while the core keeps running
            win = t // HWP_LOOP_NS
            if win != core.win:
                # the previous loop with work on this core: the last one, or earlier
                core.freq_hz = (self.max_hz * HWP_HELD if win == core.win + 1
                                else self.min_hz)
                core.win = win
            return core.freq_hz
        if g == "intel_pstate":  # get_target_pstate(), on the C0 time of the last sample
            win = t // INTEL_PSTATE_PERIOD_NS
            if win != core.win:
                load = core.win_busy / INTEL_PSTATE_PERIOD_NS if win == core.win + 1 else 0.0
                core.freq_hz = min(self.max_hz, max(self.min_hz, 1.25 * self.max_hz * load))
                core.win = win
                core.win_busy = 0
            return core.freq_hz
        # ondemand / conservative: decided at the start of each sampling period (a core
        # that idled through whole periods is evaluated once, on waking, at load 0: the
        # governor's update runs from the scheduler's hooks, which an idle CPU does not call)
        win = t // ONDEMAND_PERIOD_NS
        if win != core.win:
            load = core.win_busy / ONDEMAND_PERIOD_NS if win == core.win + 1 else 0.0
            if g == "conservative":  # one step at a time, and nothing between the thresholds
                step = CONSERVATIVE_FREQ_STEP * self.max_hz
                if load > CONSERVATIVE_UP_THRESHOLD:
                    core.freq_hz = min(self.max_hz, core.freq_hz + step)
                elif load < CONSERVATIVE_DOWN_THRESHOLD:
                    core.freq_hz = max(self.min_hz, core.freq_hz - step)
            elif load > ONDEMAND_UP_THRESHOLD:
                core.freq_hz = self.max_hz
            else:  # ondemand: in proportion to the load
                core.freq_hz = self.min_hz + min(load, 1.0) * (self.max_hz - self.min_hz)
            core.win = win
            core.win_busy = 0
        return core.freq_hz

    @staticmethod
    def _pelt(x: Core | Thread, t: int) -> float:
        """The PELT utilisation of a core or of a thread at ``t`` (decayed since its last update)."""
        dt = t - x.util_t
        if dt > 0:
            x.util *= math.exp2(-dt / PELT_HALF_LIFE_NS)
            x.util_t = t
        return x.util

    @staticmethod
    def _pelt_add(x: Core | Thread, t: int, busy_ns: int) -> None:
        """Busy time adds utilisation as PELT does (geometric series, ~1/47 per ms)."""
        CoreSet._pelt(x, t)
        x.util = min(1.0, x.util + busy_ns / (PELT_HALF_LIFE_NS * 1.44))

    def _account(self, core: Core, thread: Thread, start: int, dur: int) -> None:
        """Busy time seen by a load-tracking governor."""
        if self.governor in ("ondemand", "conservative", "intel_pstate"):
            core.win_busy += dur
        elif self.governor == "schedutil":
            # to the core and to the thread (whose utilisation follows it between cores)
            self._pelt_add(core, start, dur)
            self._pelt_add(thread, start, dur)

    # ------------------------------------------------------------- placement
    def pick(self, prev: int, ready: int) -> Core:
        cores = self.cores
        c = cores[prev]
        if c.busy_until <= ready:
            return c
        n = len(cores)
        if self.smt:  # a wholly idle core first (select_idle_core), scanning upward
            for k in range(1, n):
                c = cores[(prev + k) % n]
                if c.busy_until <= ready:
                    sib = c.sibling
                    if sib is not None and sib.busy_until <= ready:
                        return c
        for k in range(1, n):
            c = cores[(prev + k) % n]
            if c.busy_until <= ready:
                return c
        # every core is booked at ``ready``: the one that can start this run first, in the
        # idle gap a booking ahead left on it, or after its latest run
        best = cores[prev]
        first = best.busy_until
        for c in cores:
            at = c.gap_start if c.gap_start > ready else ready
            if at >= c.gap_end:
                at = c.busy_until
            if at < first:
                best, first = c, at
        return best


class Quota:
    """CFS bandwidth control of one cgroup (see the module notes): at most ``quota_ns``
    of CPU time per ``period_ns`` for all its threads together."""

    __slots__ = ("charged_ns", "limit", "name", "period_ns", "quota_ns", "throttled_ns",
                 "throttled_periods", "throttles", "used")

    def __init__(self, name: str, limit_cpus: float, period_ns: int) -> None:
        self.name = name
        self.limit = limit_cpus  #: CPUs' worth of time per period
        self.period_ns = period_ns
        self.quota_ns = max(1, int(limit_cpus * period_ns + 0.5))
        #: CPU time charged per period (by the period a run starts in); runs are booked
        #: out of time order, so a few recent periods are kept
        self.used: dict[int, int] = {}
        self.charged_ns = 0
        self.throttles = 0  #: runs that had to wait for a later period
        self.throttled_ns = 0  #: their total wait
        #: periods whose budget ran out (cpu.stat's nr_throttled counts these)
        self.throttled_periods: set[int] = set()

    def _spent(self, p: int) -> int:
        """Runtime already used in period ``p``, with the previous period's overdraft."""
        used = self.used
        over = used.get(p - 1, 0) - self.quota_ns
        return used.get(p, 0) + (over if over > 0 else 0)

    def admit(self, ready: int) -> int:
        """The earliest time from ``ready`` at which the group may run again."""
        period = self.period_ns
        p = ready // period
        if self._spent(p) < self.quota_ns:
            return ready
        self.throttled_periods.add(p)
        p += 1
        while self._spent(p) >= self.quota_ns:
            self.throttled_periods.add(p)
            p += 1
        self.throttles += 1
        self.throttled_ns += p * period - ready
        return p * period

    def charge(self, start: int, dur: int) -> None:
        p = start // self.period_ns
        used = self.used
        used[p] = used.get(p, 0) + dur
        self.charged_ns += dur
        if len(used) > 16:  # keep the recent periods only
            for k in [k for k in used if k < p - 8]:
                del used[k]


class Thread:
    """A thread that runs work items one at a time (FIFO), on cores of a CoreSet."""

    __slots__ = ("busy_ns", "cores", "free_at", "iowait", "kc", "last_core", "name", "quota",
                 "runs", "util", "util_t", "wakeup_kc")

    def __init__(self, name: str, cores: CoreSet, home: int, wakeup_kc: float,
                 iowait: bool = False) -> None:
        self.name = name
        self.cores = cores
        cores.threads.append(self)
        self.free_at = 0
        self.last_core: Core = cores.cores[home % len(cores.cores)]
        self.wakeup_kc = wakeup_kc
        self.iowait = iowait  #: wakes from I/O completions (schedutil iowait boost)
        self.runs = 0
        self.busy_ns = 0
        self.kc = 0.0  #: kilocycles run (reference core): with busy_ns, the clock it ran at
        self.util = 0.0  #: PELT utilisation of this thread (schedutil)
        self.util_t = 0
        self.quota: Quota | None = None  #: the CPU quota of its cgroup (None: unlimited)

    def run(self, t: int, kcycles: float, acc: list[int] | None, handoff: bool = True,
            step: int = 0) -> int:
        """Run ``kcycles`` of work handed to this thread at ``t``; return the end time.

        ``acc`` (``[network, cpu, wake, disk, queue]`` ns) gets the time split.
        ``handoff=False`` means the thread simply goes on with more work (no wake-up).
        ``step``: what the work is (:mod:`cephsim.model.steps`), for a traced op's span.

        This is the simulator's hottest function (~50 calls per replicated write), so
        it handles the common cases of ``CoreSet.pick`` (previous core idle),
        ``wake_penalty`` (deepest state) and ``frequency`` (fixed clock) itself.
        """
        cs = self.cores
        free = self.free_at
        if free > t:  # busy: the item waits in the thread's queue
            ready = free
            woken = False
        else:  # idle: a hand-off wakes it; otherwise it simply goes on
            ready = t
            woken = handoff
        quota = self.quota
        if quota is not None:  # a throttled cgroup runs nothing until its next period
            ready = quota.admit(ready)
        core = self.last_core
        busy = core.busy_until
        in_gap = False
        if busy > ready:  # the previous core is busy: look for another
            core = cs.pick(core.index, ready)
            busy = core.busy_until
            if busy > ready:  # none idle: perhaps a gap a booking ahead left idle
                at = core.gap_start if core.gap_start > ready else ready
                if at < core.gap_end:
                    in_gap = True
                    busy = core.gap_start  # idle since then (for the C-state choice)
        booked = busy  # when the core's booking before this run ends (or its gap begins)
        start = busy if busy > ready else ready
        sib = core.sibling
        penalty = 0
        if woken:
            kcycles += self.wakeup_kc
            if busy < ready:  # the CPU was idle: the core wakes from a C-state
                if sib is not None and sib.busy_until > busy:
                    busy = sib.busy_until  # the core slept only once both threads were idle
                if busy < ready:  # else its other thread is running: the core is awake
                    idle = ready - busy
                    if cs.menu:
                        # the core sleeps in the shallower of its two threads' requests
                        cap = cs.deepest_k if sib is None else cs.requested(sib, ready)
                        penalty = cs.menu_wake(core, busy, idle, cap)
                    elif idle >= cs.deepest_res:
                        cs.deepest_hits += 1
                        penalty = cs.deepest_pen
                    else:
                        penalty = cs.wake_penalty(idle)
        fixed = cs.fixed_clock
        governed = fixed is None  # the governor picks the clock and sees the busy time
        if fixed is None:
            clock = cs.frequency(core, start, self) * cs.per_clock
        else:
            clock = fixed
        pkg = core.package
        drop = pkg.drop
        if drop:  # the package's boost ceiling, set by how many cores are busy
            w = start // PACKAGE_WINDOW_NS
            if w > pkg.win:
                pkg.roll(w)
            if clock > pkg.cap_clock:
                clock = pkg.cap_clock
        work = int(kcycles * 1e3 / clock * 1e9 + 0.5)
        sib_end = 0
        if sib is not None:
            sib_end = sib.busy_until
            rest = sib_end - (start + penalty)
            if rest > 0:  # both hardware threads run: each at smt_yield / 2 while they overlap
                both = work if work < rest else rest  # solo-speed work each does side by side
                stretch = int(both * cs.smt_stretch + 0.5)
                work += stretch
                # The sibling's run is already scheduled; it is stretched as much, and its
                # thread and CPU pay that before their next run.
                sib.busy_until += stretch
                other = sib.owner
                if other is not None and other.last_core is sib:
                    other.free_at += stretch
                    other.busy_ns += stretch
        dur = penalty + work
        end = start + dur
        if drop:  # busy physical-core time: what the sibling's run did not already cover
            if sib_end > start:
                sib_now = sib.busy_until  # type: ignore[union-attr]
                pkg.add(sib_end, end if end > sib_now else sib_now)
            else:
                pkg.add(start, end)
        if in_gap:  # the booking after the gap stays; the rest of the gap stays usable
            core.gap_start = end
            over = end - core.gap_end
            if over > 0:  # ran into the booking after the gap: that work moves back
                latest = core.busy_until
                core.busy_until = latest + over
                owner = core.owner
                if owner is not None and owner.free_at == latest:
                    owner.free_at = latest + over
        else:
            if start > booked:  # booked ahead of an idle core: remember the gap
                core.gap_start = booked
                core.gap_end = start
            core.busy_until = end
            core.owner = self
        if governed:
            cs._account(core, self, start, dur)
        if quota is not None:
            quota.charge(start, dur)
        self.last_core = core
        self.free_at = end
        self.runs += 1
        self.busy_ns += dur
        self.kc += kcycles
        if acc is not None:
            acc[ACC_CPU] += work
            acc[ACC_WAKE] += penalty
            acc[ACC_QUEUE] += start - t
            if type(acc) is not list:  # a traced op (cephsim.metrics.trace)
                spans = acc.spans  # type: ignore[attr-defined]
                spans.append((self.name, "cpu", t, start, end, penalty, step))
        return end

    def block(self, t: int, duration: int) -> None:
        """The thread is held up (e.g. a background stall) from ``t`` for ``duration``."""
        self.free_at = max(self.free_at, t) + duration
