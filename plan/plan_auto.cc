// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The child side of NUMABIND_POLICY=auto (plan_auto.h): plain arithmetic on the prepared basis, no
// allocation, no libc calls, no statics with guards (compiled into the shim, runs between fork and exec).

#include "plan/plan_auto.h"

namespace numabind::plan {

namespace {

constexpr uint32_t kLevels = 3;  // nodes, caches, cores; threads are the bits of one core's unit

// The item of `level` unit u belongs to: its node number, its cache's index, or the unit (core) itself.
// Child-safe: reads the basis.
uint32_t Key(const PlanBasis& b, uint32_t u, uint32_t level) {
  return level < 2 ? b.unit_domains[3 * static_cast<uint64_t>(u) + level] : u;
}

// How many items of `level` units [a, e) hold (runs of equal keys). Child-safe: pure arithmetic.
uint32_t CountItems(const PlanBasis& b, uint32_t a, uint32_t e, uint32_t level) {
  uint32_t n = 0;
  for (uint32_t u = a; u < e; ++u)
    if (u == a || Key(b, u, level) != Key(b, u - 1, level)) ++n;
  return n;
}

// The units [*ua, *ue) of items [i0, i1) of `level` among units [a, e). Child-safe: pure arithmetic.
void ItemUnits(const PlanBasis& b, uint32_t a, uint32_t e, uint32_t level, uint64_t i0, uint64_t i1,
               uint32_t* ua, uint32_t* ue) {
  *ua = e;
  *ue = e;
  uint64_t item = 0;
  for (uint32_t u = a; u < e; ++u) {
    if (u != a && Key(b, u, level) != Key(b, u - 1, level)) ++item;
    if (item == i0 && *ua == e) *ua = u;
    if (item == i1) {
      *ue = u;
      return;
    }
  }
}

// What unit u weighs when ranks are shared out in proportion: one per core while ranks do not outnumber
// the domain's cores, else its threads (oversubscribed: a core with two threads takes two ranks before a
// core with one takes a second). Child-safe: pure arithmetic.
uint64_t Weight(const PlanBasis& b, uint32_t u, bool by_threads) {
  if (!by_threads) return 1;
  uint64_t threads = b.unit_domains[3 * static_cast<uint64_t>(u) + 2], most = 64ull * b.cpu_words;
  return threads < most ? threads : most;  // a received block's word cannot count more CPUs than a set holds
}

// Rank `index` of `count` > items of `level` in units [*a, *e), in proportion to the items' weights: the
// rank goes to the item holding weight position floor(index * total / count), so an item gets ranks in
// proportion to its cores and, while ranks do not outnumber cores, never more ranks than cores (a cgroup's
// partial node, offline CPUs). Narrows [*a, *e) to that item and sets *sub (the rank's index there) and
// *there (the item's ranks). Child-safe: pure arithmetic.
void Weigh(const PlanBasis& b, uint32_t level, uint64_t index, uint64_t count, uint32_t* a, uint32_t* e,
           uint64_t* sub, uint64_t* there) {
  bool by_threads = count > static_cast<uint64_t>(*e - *a);
  uint64_t total = 0;
  for (uint32_t u = *a; u < *e; ++u) total += Weight(b, u, by_threads);
  *sub = 0, *there = 1;
  if (total == 0) return;                                       // a malformed block only (units without CPUs)
  uint64_t anchor = index * total / count, before = 0, at = 0;  // weight before the item, before unit u
  uint32_t start = *a;
  for (uint32_t u = *a; u < *e; ++u) {
    at += Weight(b, u, by_threads);
    if (u + 1 < *e && Key(b, u + 1, level) == Key(b, u, level)) continue;
    if (anchor < at) {  // the item is units [start, u + 1), weights [before, at)
      uint64_t lo = (before * count + total - 1) / total, hi = (at * count + total - 1) / total;
      // lo <= index < hi by construction; a received block's absurd counts could wrap the products.
      *sub = index >= lo ? index - lo : 0, *there = hi > lo ? hi - lo : 0;
      *a = start, *e = u + 1;
      return;
    }
    start = u + 1, before = at;
  }
}

// Rank `index` of `count` <= items: its first item and how many it takes. Child-safe: pure arithmetic.
void Block(uint64_t index, uint64_t count, uint64_t items, uint64_t* first, uint64_t* len) {
  *first = 0, *len = 0;
  if (count == 0) return;
  uint64_t per = items / count, extra = items % count;
  *first = index * per + (index < extra ? index : extra);
  *len = per + (index < extra ? 1 : 0);
}

// Rank `index` of `count` > items: its item, its index there and how many ranks the item has. Child-safe.
void Spread(uint64_t index, uint64_t count, uint64_t items, uint64_t* item, uint64_t* sub, uint64_t* there) {
  uint64_t per = count / items, extra = count % items, big = extra * (per + 1);
  if (index < big) {
    *item = index / (per + 1), *sub = index % (per + 1), *there = per + 1;
  } else {
    *item = extra + (index - big) / per, *sub = (index - big) % per, *there = per;
  }
}

// Adds unit u's CPUs to the rank and its node (when it is one of the slot's nodes). Child-safe.
void TakeUnit(const PlanBasis& b, const uint64_t* slot_nodes, uint32_t u, RankPlan* out) {
  const uint64_t* cpus = b.unit_cpus + static_cast<uint64_t>(u) * b.cpu_words;
  for (uint32_t w = 0; w < b.cpu_words; ++w) out->cpus[w] |= cpus[w];
  uint32_t node = b.unit_domains[3 * static_cast<uint64_t>(u)];
  if (node / 64 < b.node_words && ((slot_nodes[node / 64] >> (node % 64)) & 1))
    out->nodes[node / 64] |= uint64_t{1} << (node % 64);
}

}  // namespace

namespace {

// Calls f(k, first unit, end unit, weight) for each node k of units [a, e), in order, while f returns true.
// Child-safe: pure arithmetic.
template <typename F>
void ForNodes(const PlanBasis& b, uint32_t a, uint32_t e, bool by_threads, F f) {
  uint64_t weight = 0, k = 0;
  uint32_t start = a;
  for (uint32_t u = a; u < e; ++u) {
    weight += Weight(b, u, by_threads);
    if (u + 1 < e && Key(b, u + 1, 0) == Key(b, u, 0)) continue;
    if (!f(k, start, u + 1, weight)) return;
    weight = 0, ++k, start = u + 1;
  }
}

// Rank `index` of `count` > nodes of units [*a, *e): every node one rank, the other ranks in proportion to
// the nodes' cores beyond their first (threads when ranks outnumber cores), by largest remainder (mpibind's
// rule): each node gets its quota's whole part, and the ranks left over go one each to the nodes with the
// largest remainders; ties to the node with more cores, then the lower node. So each node's count is its
// quota rounded down or up, and nodes of equal weight never differ by more than one. Narrows [*a, *e) to
// the rank's node and sets *sub (its index there) and *there (the node's ranks). Child-safe: pure
// arithmetic, O(nodes x units) without storage.
void PerNode(const PlanBasis& b, uint64_t index, uint64_t count, uint32_t* a, uint32_t* e, uint64_t* sub,
             uint64_t* there) {
  bool by_threads = count > static_cast<uint64_t>(*e - *a);
  uint64_t nodes = CountItems(b, *a, *e, 0), total = 0;
  ForNodes(b, *a, *e, by_threads, [&](uint64_t, uint32_t, uint32_t, uint64_t w) {
    total += w - 1;  // a node of one core (or thread) takes its one rank only
    return true;
  });
  bool flat = total == 0 || total > 0x3fffffffull;  // equal weights; or absurd counts (extra * w fits)
  uint64_t extra = count - nodes, den = flat ? nodes : total;
  auto share = [&](uint64_t w) { return extra * (flat ? 1 : w - 1); };  // the quota is share / den
  uint64_t whole = 0;
  ForNodes(b, *a, *e, by_threads, [&](uint64_t, uint32_t, uint32_t, uint64_t w) {
    whole += share(w) / den;
    return true;
  });
  uint64_t left = extra - whole;  // < nodes: one each to the largest remainders
  auto bonus = [&](uint64_t k, uint64_t w) {
    uint64_t rem = share(w) % den, beaten = 0;
    ForNodes(b, *a, *e, by_threads, [&](uint64_t j, uint32_t, uint32_t, uint64_t wj) {
      uint64_t rj = share(wj) % den;
      beaten += rj > rem || (rj == rem && (wj > w || (wj == w && j < k)));
      return beaten < left;
    });
    return beaten < left ? 1u : 0u;
  };
  uint64_t lo = 0;
  bool found = false;
  ForNodes(b, *a, *e, by_threads, [&](uint64_t k, uint32_t first, uint32_t end, uint64_t w) {
    uint64_t n = 1 + share(w) / den + bonus(k, w);
    if (index < lo + n) {
      *sub = index - lo, *there = n, *a = first, *e = end, found = true;
      return false;
    }
    lo += n;
    return true;
  });
  if (!found) *sub = 0, *there = 0;  // counts past the nodes: only from a malformed block
}

// Whether units [ua, ue) of [a, e) are whole items of `level` (nothing of their first or last item left
// out). Child-safe: pure arithmetic.
bool Whole(const PlanBasis& b, uint32_t a, uint32_t e, uint32_t ua, uint32_t ue, uint32_t level) {
  return ua < ue && (ua == a || Key(b, ua - 1, level) != Key(b, ua, level)) &&
         (ue == e || Key(b, ue, level) != Key(b, ue - 1, level));
}

// Whether blocks of whole caches give each of `ranks` ranks of node units [a, e) an equal share (within one
// core: what the cores' own blocks give). Child-safe: pure arithmetic.
bool CachesBalance(const PlanBasis& b, uint32_t a, uint32_t e, uint64_t ranks) {
  uint64_t caches = CountItems(b, a, e, 1), cores = e - a, lo = cores / ranks,
           hi = (cores + ranks - 1) / ranks;
  if (ranks > caches) return false;
  for (uint64_t k = 0; k < ranks; ++k) {
    uint64_t first, len;
    uint32_t ua, ue;
    Block(k, ranks, caches, &first, &len);
    ItemUnits(b, a, e, 1, first, first + len, &ua, &ue);
    if (ue - ua < lo || ue - ua > hi) return false;
  }
  return true;
}

// PlaceAuto without its fallback for nodes. Child-safe: arithmetic on the basis, writes only into *out.
void Place(const PlanBasis& b, const PlanSlot& slot, const uint64_t* slot_nodes, uint64_t index,
           uint64_t count, RankPlan* out) {
  AutoShare& s = out->share;
  if (count == 0 || slot.unit_count == 0) return;  // the caller's contract; nothing to place
  s.group_ranks = static_cast<uint32_t>(count);
  uint32_t a = slot.first_unit, e = slot.first_unit + slot.unit_count;
  if (slot.fast_units > 0 && slot.fast_units < slot.unit_count) {  // core kinds: two runs (AddAutoUnits)
    if (count <= slot.fast_units) {
      e = a + slot.fast_units;  // the ranks fit on the fastest kind's cores: those alone
    } else {
      a += slot.fast_units;  // more ranks than those cores: every core
    }
  }
  s.node = b.unit_domains[3 * static_cast<uint64_t>(a)];
  uint32_t nodes = CountItems(b, a, e, 0);
  if (count <= nodes) {  // fewer ranks than nodes: blocks of whole nodes
    uint64_t first, len;
    uint32_t ua, ue;
    Block(index, count, nodes, &first, &len);
    ItemUnits(b, a, e, 0, first, first + len, &ua, &ue);
    for (uint32_t u = ua; u < ue; ++u) TakeUnit(b, slot_nodes, u, out);
    s.grain = AutoGrain::kNodes;
    s.taken = static_cast<uint32_t>(len), s.of = nodes, s.sharers = static_cast<uint32_t>(count);
    s.node = b.unit_domains[3 * static_cast<uint64_t>(ua < e ? ua : a)];
    return;
  }
  uint64_t sub, there;
  PerNode(b, index, count, &a, &e, &sub, &there);
  if (there == 0 || sub >= there) return;  // only from a malformed block: no CPUs, the caller says so
  s.node = b.unit_domains[3 * static_cast<uint64_t>(a)];
  uint32_t cores = e - a;
  if (there <= cores) {  // equal shares of the node's cores, lower ranks one more; caches whole if so cut
    uint64_t first, len;
    uint32_t ua, ue;
    if (there > 1 && CachesBalance(b, a, e, there)) {  // whole caches that are equal shares too
      Block(sub, there, CountItems(b, a, e, 1), &first, &len);
      ItemUnits(b, a, e, 1, first, first + len, &ua, &ue);
    } else {
      Block(sub, there, cores, &first, &len);
      ua = a + static_cast<uint32_t>(first), ue = ua + static_cast<uint32_t>(len);
    }
    for (uint32_t u = ua; u < ue; ++u) TakeUnit(b, slot_nodes, u, out);
    s.sharers = static_cast<uint32_t>(there);
    if (there == 1) {
      s.grain = AutoGrain::kNodes, s.taken = 1, s.of = nodes;
    } else if (Whole(b, a, e, ua, ue, 1)) {
      s.grain = AutoGrain::kCaches, s.taken = CountItems(b, ua, ue, 1), s.of = CountItems(b, a, e, 1);
    } else {
      s.grain = AutoGrain::kCores, s.taken = ue - ua, s.of = cores;
    }
    return;
  }
  // More ranks than the node has cores: by caches, then cores in proportion to their threads.
  index = sub, count = there;
  for (uint32_t level = 1; level < kLevels; ++level) {
    Weigh(b, level, index, count, &a, &e, &sub, &there);
    if (there == 0 || sub >= there) return;
    index = sub, count = there;
  }
  // More ranks than cores: the threads of core `a` shared out among its `count` ranks.
  s.node = b.unit_domains[3 * static_cast<uint64_t>(a)];
  TakeUnit(b, slot_nodes, a, out);  // its node; the CPUs are narrowed to the rank's threads below
  const uint64_t* core = b.unit_cpus + static_cast<uint64_t>(a) * b.cpu_words;
  uint32_t threads = CountBits(core, b.cpu_words);
  if (threads == 0) return;
  uint64_t first, len;
  if (count <= threads) {
    Block(index, count, threads, &first, &len);
    s.grain = AutoGrain::kThreads, s.taken = static_cast<uint32_t>(len),
    s.sharers = static_cast<uint32_t>(count);
  } else {
    Spread(index, count, threads, &first, &sub, &there);
    len = 1;
    s.grain = AutoGrain::kShared, s.taken = 1, s.sharers = static_cast<uint32_t>(there);
  }
  s.of = threads;
  // Keep the len threads (set bits of the core) from the first-th on.
  uint64_t seen = 0;
  for (uint32_t w = 0; w < b.cpu_words; ++w) {
    uint64_t keep = 0;
    for (uint64_t bits = core[w]; bits != 0; bits &= bits - 1, ++seen)
      if (seen >= first && seen < first + len) keep |= bits & (~bits + 1);
    out->cpus[w] = (out->cpus[w] & ~core[w]) | keep;
  }
}

}  // namespace

// Child-safe: arithmetic on the basis, writes only into *out and its storage.
void PlaceAuto(const PlanBasis& b, const PlanSlot& slot, uint64_t index, uint64_t count, RankPlan* out) {
  const uint64_t* slot_nodes = b.slot_nodes + static_cast<uint64_t>(&slot - b.slots) * b.node_words;
  for (uint32_t w = 0; w < b.node_words; ++w) out->nodes[w] = 0;
  Place(b, slot, slot_nodes, index, count, out);
  // CPUs outside every node (a restricted topology file): memory over the slot's nodes, as other policies.
  if (CountBits(out->nodes, b.node_words) == 0)
    for (uint32_t w = 0; w < b.node_words; ++w) out->nodes[w] = slot_nodes[w];
}

// Child-safe: pure arithmetic.
bool AutoDeviceBlock(const PlanBasis& b, uint32_t rank, uint32_t n, uint32_t* first, uint32_t* count) {
  if (b.policy != config::PolicyKind::kAuto || b.spread_in_blocks || b.slot_count == 0 || n == 0 ||
      n >= b.slot_count || b.slots[0].device[0] == '\0')
    return false;
  uint64_t f, len;
  Block(rank < n ? rank : n - 1, n, b.slot_count, &f, &len);
  *first = static_cast<uint32_t>(f), *count = static_cast<uint32_t>(len);
  return true;
}

// Child-safe: arithmetic on the basis, writes only into *out and its storage.
void PlaceAutoBlock(const PlanBasis& b, uint32_t first, uint32_t count, uint32_t rank, uint32_t n,
                    RankPlan* out) {
  for (uint32_t w = 0; w < b.node_words; ++w) out->nodes[w] = 0;
  uint64_t per = b.slot_count / n, extra = b.slot_count % n;
  auto rank_of = [&](uint64_t slot) {  // the rank whose block holds `slot` (Block's inverse)
    return slot < extra * (per + 1) ? slot / (per + 1) : extra + (slot - extra * (per + 1)) / per;
  };
  for (uint32_t t = first; t < first + count && t < b.slot_count; ++t) {
    bool seen = false;  // a group once, however many of the block's slots it holds
    for (uint32_t q = first; q < t; ++q) seen |= b.slots[q].group == b.slots[t].group;
    if (seen) continue;
    uint64_t index = 0, sharing = 0, last = ~uint64_t{0};
    for (uint32_t u = 0; u < b.slot_count; ++u) {
      if (b.slots[u].group != b.slots[t].group || rank_of(u) == last) continue;
      last = rank_of(u), ++sharing;
      if (last < rank) ++index;
    }
    Place(b, b.slots[t], b.slot_nodes + static_cast<uint64_t>(t) * b.node_words, index, sharing, out);
  }
  if (CountBits(out->nodes, b.node_words) == 0)  // CPUs outside every node: the slots' nodes
    for (uint32_t t = first; t < first + count && t < b.slot_count; ++t)
      for (uint32_t w = 0; w < b.node_words; ++w)
        out->nodes[w] |= b.slot_nodes[static_cast<uint64_t>(t) * b.node_words + w];
}

}  // namespace numabind::plan
