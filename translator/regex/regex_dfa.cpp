// From a parsed pattern to the DFA the runtime walks: a Thompson NFA whose
// edges are byte sets, epsilons and the two assertions (`^` passable only
// at the string's start, `$` only at its end); bytes grouped into classes
// that no set tells apart; then subset construction.
//
// A DFA state is a closed set of NFA states plus "at the start of the
// string" (true only for the initial state, where `^` edges may be taken).
// Every step adds the NFA's start again, so the DFA searches rather than
// matches whole strings. A state whose set holds the NFA's final state
// accepts at once; one that reaches it through `$` edges accepts at the end
// of the string; one with neither and no byte edge left is dead. Accepting
// and dead states loop on themselves: the matcher stops there.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "translator/regex/regex.h"

namespace stapx::regex {

namespace {

struct TooBig {};

struct NfaState {
  int set = -1;  // byte edge: the index of its set, to `next`
  int next = -1;
  std::vector<int> eps, bol, eol;
};

struct Frag {
  int start, end;
};

class Nfa {
 public:
  std::vector<NfaState> states;
  std::vector<std::vector<bool>> sets;

  int add() {
    if (states.size() >= kMaxNfaStates) throw TooBig{};
    states.emplace_back();
    return static_cast<int>(states.size() - 1);
  }

  Frag build(const Node& n) {
    switch (n.kind) {
      case Node::Empty: {
        int s = add();
        return {s, s};
      }
      case Node::Bytes: {
        int s = add(), e = add();
        states[s].set = set_index(n.bytes);
        states[s].next = e;
        return {s, e};
      }
      case Node::Bol:
      case Node::Eol: {
        int s = add(), e = add();
        (n.kind == Node::Bol ? states[s].bol : states[s].eol).push_back(e);
        return {s, e};
      }
      case Node::Concat: {
        Frag f = build(n.kids[0]);
        for (size_t i = 1; i < n.kids.size(); ++i) {
          Frag g = build(n.kids[i]);
          states[f.end].eps.push_back(g.start);
          f.end = g.end;
        }
        return f;
      }
      case Node::Alt: {
        int s = add(), e = add();
        for (const Node& k : n.kids) {
          Frag g = build(k);
          states[s].eps.push_back(g.start);
          states[g.end].eps.push_back(e);
        }
        return {s, e};
      }
      case Node::Repeat: return repeat(n);
      case Node::Group: return build(n.kids[0]);  // the DFA records no groups
    }
    return {0, 0};
  }

 private:
  // min copies in sequence, then either a loop or (max - min) optional ones.
  Frag repeat(const Node& n) {
    int s = add();
    Frag f{s, s};
    auto append = [&](Frag g) {
      states[f.end].eps.push_back(g.start);
      f.end = g.end;
    };
    for (int i = 0; i < n.min; ++i) append(build(n.kids[0]));
    if (n.max < 0) {
      int ls = add(), le = add();
      Frag body = build(n.kids[0]);
      states[ls].eps.push_back(body.start);
      states[ls].eps.push_back(le);
      states[body.end].eps.push_back(body.start);
      states[body.end].eps.push_back(le);
      append({ls, le});
    } else {
      // a{2,4} = aa(a(a)?)? : each optional copy skips to the common end.
      int end = add();
      for (int i = n.min; i < n.max; ++i) {
        states[f.end].eps.push_back(end);
        append(build(n.kids[0]));
      }
      append({end, end});
    }
    return f;
  }

  int set_index(const std::vector<bool>& set) {
    auto [it, fresh] = index_.emplace(set, static_cast<int>(sets.size()));
    if (fresh) sets.push_back(set);
    return it->second;
  }
  std::map<std::vector<bool>, int> index_;
};

// Bytes that every set treats alike share a class.
void byte_classes(const Nfa& nfa, Dfa& out, std::vector<std::vector<bool>>& set_has_class) {
  int cls[256] = {};
  int n = 1;
  for (const auto& set : nfa.sets) {
    std::map<std::pair<int, bool>, int> renumber;
    for (int b = 0; b < 256; ++b)
      cls[b] = renumber.emplace(std::pair{cls[b], static_cast<bool>(set[b])}, static_cast<int>(renumber.size()))
                   .first->second;
    n = static_cast<int>(renumber.size());
  }
  out.nclasses = n;
  for (int b = 0; b < 256; ++b) out.classes[b] = static_cast<uint8_t>(cls[b]);
  set_has_class.assign(nfa.sets.size(), std::vector<bool>(n, false));
  for (size_t i = 0; i < nfa.sets.size(); ++i)
    for (int b = 0; b < 256; ++b)
      if (nfa.sets[i][b]) set_has_class[i][cls[b]] = true;
}

// The states reachable from `seeds` through epsilons, `^` edges when at the
// start, and `$` edges when at the end; sorted. `seen` is scratch space
// sized like the NFA, marked with a fresh stamp per call.
struct Seen {
  std::vector<uint32_t> mark;
  uint32_t stamp = 0;
  uint64_t work = 0;  // NFA states visited, all calls together
};

std::vector<int> closure(const Nfa& nfa, std::vector<int> seeds, bool at_start, bool at_end, Seen& seen) {
  if (seen.mark.size() != nfa.states.size()) seen.mark.assign(nfa.states.size(), 0);
  const uint32_t stamp = ++seen.stamp;
  std::vector<int> out;
  while (!seeds.empty()) {
    int s = seeds.back();
    seeds.pop_back();
    if (seen.mark[s] == stamp) continue;
    seen.mark[s] = stamp;
    ++seen.work;
    out.push_back(s);
    const NfaState& st = nfa.states[s];
    seeds.insert(seeds.end(), st.eps.begin(), st.eps.end());
    if (at_start) seeds.insert(seeds.end(), st.bol.begin(), st.bol.end());
    if (at_end) seeds.insert(seeds.end(), st.eol.begin(), st.eol.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<Error> compile(std::string_view pattern, Dfa& out) {
  Node tree;
  if (auto err = parse(pattern, tree)) return err;
  Nfa nfa;
  Frag whole;
  try {
    whole = nfa.build(tree);
  } catch (const TooBig&) {
    return Error{0, fmt::format("regex too complex (its automaton would exceed {} NFA states)", kMaxNfaStates)};
  }
  std::vector<std::vector<bool>> set_has_class;
  out = Dfa{};
  byte_classes(nfa, out, set_has_class);
  const int final_state = whole.end;
  const size_t nclasses = static_cast<size_t>(out.nclasses);

  using Key = std::pair<std::vector<int>, bool>;  // NFA states, at the start
  std::map<Key, uint16_t> ids;
  std::vector<Key> todo;  // by DFA state number
  auto intern = [&](Key key) -> std::optional<uint16_t> {
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    if (todo.size() >= kMaxStates) return std::nullopt;
    uint16_t id = static_cast<uint16_t>(todo.size());
    ids.emplace(key, id);
    todo.push_back(std::move(key));
    return id;
  };
  auto too_big = [&] {
    return Error{0, fmt::format("regex too complex (its automaton would exceed {} states)", kMaxStates)};
  };
  // The initial state differs from the same set later only if `^` edges
  // remain to be taken from it (by `$^`, say).
  Seen seen;
  std::vector<int> initial = closure(nfa, {whole.start}, true, false, seen);
  bool bol_left = false;
  for (int s : closure(nfa, initial, true, true, seen)) bol_left = bol_left || !nfa.states[s].bol.empty();
  // A set is kept by its states that matter later: those with a byte or
  // `$` edge, and the final one (the rest were only passed through).
  auto kernel = [&](std::vector<int> set) {
    std::erase_if(set, [&](int s) {
      const NfaState& st = nfa.states[s];
      return st.set < 0 && st.eol.empty() && s != final_state;
    });
    return set;
  };
  intern({kernel(std::move(initial)), bol_left});
  for (size_t d = 0; d < todo.size(); ++d) {
    const auto [set, at_start] = todo[d];
    uint8_t flags = 0;
    bool has_bytes = false;
    for (int s : set) has_bytes = has_bytes || nfa.states[s].set >= 0;
    if (std::binary_search(set.begin(), set.end(), final_state)) flags |= kAcceptNow;
    std::vector<int> at_end = closure(nfa, set, at_start, true, seen);
    if (std::binary_search(at_end.begin(), at_end.end(), final_state)) flags |= kAcceptEnd;
    if (!flags && !has_bytes) flags |= kDead;
    out.flags.push_back(flags);
    out.trans.resize(todo.size() * nclasses);
    std::map<std::vector<int>, uint16_t> by_moved;  // classes that lead alike
    for (size_t c = 0; c < nclasses; ++c) {
      uint16_t target = static_cast<uint16_t>(d);
      if (!(flags & (kAcceptNow | kDead))) {
        std::vector<int> moved{whole.start};
        for (int s : set) {
          const NfaState& st = nfa.states[s];
          if (st.set >= 0 && set_has_class[st.set][c]) moved.push_back(st.next);
        }
        auto known = by_moved.find(moved);
        if (known != by_moved.end()) {
          target = known->second;
        } else {
          auto id = intern({kernel(closure(nfa, moved, false, false, seen)), false});
          if (!id) return too_big();
          if (seen.work > kMaxWork)
            return Error{0, "regex too complex (its automaton takes too long to build)"};
          target = *id;
          by_moved.emplace(std::move(moved), target);
        }
      }
      out.trans.resize(todo.size() * nclasses);
      out.trans[d * nclasses + c] = target;
    }
  }
  return std::nullopt;
}

bool match(const Dfa& dfa, std::string_view s, size_t limit) {
  size_t state = 0;
  for (size_t i = 0;; ++i) {
    uint8_t f = dfa.flags[state];
    if (f & kAcceptNow) return true;
    if (f & kDead) return false;
    if (i >= s.size() || i >= limit || s[i] == '\0') return f & kAcceptEnd;
    state = dfa.trans[state * dfa.nclasses + dfa.classes[static_cast<unsigned char>(s[i])]];
  }
}

}  // namespace stapx::regex
