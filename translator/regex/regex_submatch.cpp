// The sub-match program of a pattern (regex.h, Prog) and its simulation in
// C++, the twin of runtime-c/regex.c's _stpx_regex_submatch (unit tests
// run both). The program is a Thompson NFA laid out as instructions:
//   Save 0; <pattern>; Save 1; Match
// where a group g is Save 2g; <contents>; Save 2g + 1, an alternation a|b
// is Split(a, b) with a Jmp past b after a, and repetitions are Splits
// that prefer another round. The simulation (Pike VM) keeps one thread per
// instruction, in order of preference; a thread started at an earlier
// byte always comes before a later one, so the leftmost match wins.
#include <fmt/format.h>

#include "translator/regex/regex.h"

namespace stapx::regex {

namespace {

struct TooBig {};

class Emitter {
 public:
  explicit Emitter(Prog& prog) : p_(prog) {}

  int pc() const { return static_cast<int>(p_.insts.size()); }

  int emit(uint8_t op, int arg = 0, int x = -1, int y = 0) {
    if (p_.insts.size() >= 0xffff) throw TooBig{};
    Inst in;
    in.op = op;
    in.arg = static_cast<uint16_t>(arg);
    in.x = static_cast<uint16_t>(x < 0 ? pc() + 1 : x);
    in.y = static_cast<uint16_t>(y);
    p_.insts.push_back(in);
    return pc() - 1;
  }

  void node(const Node& n) {
    switch (n.kind) {
      case Node::Empty: return;
      case Node::Bytes: emit(kOpByte, set_index(n.bytes)); return;
      case Node::Bol: emit(kOpBol); return;
      case Node::Eol: emit(kOpEol); return;
      case Node::Concat:
        for (const Node& k : n.kids) node(k);
        return;
      case Node::Alt: {
        std::vector<int> jumps;
        for (size_t i = 0; i + 1 < n.kids.size(); ++i) {
          int split = emit(kOpSplit);
          node(n.kids[i]);
          jumps.push_back(emit(kOpJmp));
          p_.insts[split].y = static_cast<uint16_t>(pc());
        }
        node(n.kids.back());
        for (int j : jumps) p_.insts[j].x = static_cast<uint16_t>(pc());
        return;
      }
      case Node::Group:
        emit(kOpSave, 2 * n.group);
        node(n.kids[0]);
        emit(kOpSave, 2 * n.group + 1);
        return;
      case Node::Repeat: repeat(n); return;
    }
  }

 private:
  void repeat(const Node& n) {
    const Node& body = n.kids[0];
    if (n.max < 0 && n.min > 0) {  // body{min-1}, then body and Split back to it
      for (int i = 1; i < n.min; ++i) node(body);
      int top = pc();
      node(body);
      emit(kOpSplit, 0, top, pc() + 1);
      return;
    }
    for (int i = 0; i < n.min; ++i) node(body);
    if (n.max < 0) {  // Split(body, out); body; Jmp back
      int split = emit(kOpSplit);
      node(body);
      emit(kOpJmp, 0, split);
      p_.insts[split].y = static_cast<uint16_t>(pc());
      return;
    }
    std::vector<int> splits;  // each optional copy can skip to the end
    for (int i = n.min; i < n.max; ++i) {
      splits.push_back(emit(kOpSplit));
      node(body);
    }
    for (int s : splits) p_.insts[s].y = static_cast<uint16_t>(pc());
  }

  int set_index(const std::vector<bool>& set) {
    std::vector<uint8_t> bits(32, 0);
    for (int b = 0; b < 256; ++b)
      if (set[b]) bits[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
    for (size_t i = 0; i < p_.sets.size(); ++i)
      if (p_.sets[i] == bits) return static_cast<int>(i);
    p_.sets.push_back(std::move(bits));
    return static_cast<int>(p_.sets.size() - 1);
  }

  Prog& p_;
};

// The simulation's thread list: a sparse set of instructions, each with
// its thread's slots.
struct Threads {
  std::vector<int> pcs;
  std::vector<int> at;  // instruction -> index in pcs (valid if pcs[at] == it)
  std::vector<int> slots;
  size_t nslots;

  Threads(size_t ninsts, size_t nslots) : at(ninsts, 0), slots(ninsts * nslots), nslots(nslots) {}
  bool has(int pc) const {
    return static_cast<size_t>(at[pc]) < pcs.size() && pcs[at[pc]] == pc;
  }
};

// Adds the thread at `pc` with slots `cur` (restored on return) and every
// thread its Split/Jmp/Save/assertion instructions lead to, in order of
// preference, without recursion.
void add_thread(const Prog& p, Threads& list, int pc0, std::vector<int>& cur, int pos, int len) {
  struct Entry {
    int pc, slot, value;  // slot >= 0: restore cur[slot] = value
  };
  std::vector<Entry> stack{{pc0, -1, 0}};
  while (!stack.empty()) {
    Entry e = stack.back();
    stack.pop_back();
    if (e.slot >= 0) {
      cur[e.slot] = e.value;
      continue;
    }
    if (list.has(e.pc)) continue;
    list.at[e.pc] = static_cast<int>(list.pcs.size());
    list.pcs.push_back(e.pc);
    const Inst& in = p.insts[e.pc];
    switch (in.op) {
      case kOpJmp: stack.push_back({in.x, -1, 0}); break;
      case kOpSplit:
        stack.push_back({in.y, -1, 0});
        stack.push_back({in.x, -1, 0});
        break;
      case kOpSave:
        stack.push_back({0, in.arg, cur[in.arg]});
        cur[in.arg] = pos;
        stack.push_back({in.x, -1, 0});
        break;
      case kOpBol:
        if (pos == 0) stack.push_back({in.x, -1, 0});
        break;
      case kOpEol:
        if (pos == len) stack.push_back({in.x, -1, 0});
        break;
      default:  // Byte, Match: a thread
        std::copy(cur.begin(), cur.end(), list.slots.begin() + list.at[e.pc] * list.nslots);
        break;
    }
  }
}

}  // namespace

std::optional<Error> compile_submatch(std::string_view pattern, Prog& out) {
  Node tree;
  int groups = 0;
  if (auto err = parse(pattern, tree, &groups)) return err;
  out = Prog{};
  out.nslots = 2 * (groups + 1);
  try {
    Emitter e(out);
    e.emit(kOpSave, 0);
    e.node(tree);
    e.emit(kOpSave, 1);
    e.emit(kOpMatch);
  } catch (const TooBig&) {
    out.insts.clear();
  }
  if (out.insts.empty() || out.insts.size() * out.nslots > kMaxSubmatchCells)
    return Error{0, fmt::format("regex too complex for matched() (more than {} sub-match states)",
                                kMaxSubmatchCells)};
  return std::nullopt;
}

std::vector<int> submatch(const Prog& p, std::string_view s, size_t limit) {
  int len = 0;
  while (static_cast<size_t>(len) < s.size() && static_cast<size_t>(len) < limit && s[len] != '\0') ++len;
  const size_t n = p.insts.size(), ns = static_cast<size_t>(p.nslots);
  Threads lists[2] = {Threads(n, ns), Threads(n, ns)};
  std::vector<int> cur(ns, -1), best;
  int c = 0;
  for (int pos = 0;; ++pos) {
    Threads& now = lists[c];
    Threads& next = lists[c ^ 1];
    if (best.empty()) {  // a new start, least preferred
      std::fill(cur.begin(), cur.end(), -1);
      add_thread(p, now, 0, cur, pos, len);
    }
    if (now.pcs.empty()) break;
    for (size_t i = 0; i < now.pcs.size(); ++i) {
      const Inst& in = p.insts[now.pcs[i]];
      const int* slots = &now.slots[i * ns];
      if (in.op == kOpMatch) {
        if (best.empty() || slots[0] < best[0] || (slots[0] == best[0] && slots[1] > best[1]))
          best.assign(slots, slots + ns);
      } else if (in.op == kOpByte && pos < len) {
        unsigned char b = static_cast<unsigned char>(s[pos]);
        if (p.sets[in.arg][b / 8] & (1u << (b % 8))) {
          cur.assign(slots, slots + ns);
          add_thread(p, next, in.x, cur, pos + 1, len);
        }
      }
    }
    now.pcs.clear();
    c ^= 1;
    if (pos == len) break;
  }
  return best;
}

}  // namespace stapx::regex
