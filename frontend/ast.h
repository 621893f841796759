// The stapx AST. Nodes live in an Arena owned by the pipeline; pointers
// between nodes are plain and never owning. Every node carries the source
// location of its first token. Invariants after pass 1: no null Expr* except
// where a field says "may be null"; after pass 2 every VarRef has a Symbol,
// every CallExpr a target, and every Expr a type other than Unknown.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <span>
#include <stdexcept>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "frontend/source.h"

namespace stapx::ast {

enum class Type : uint8_t { Unknown, Long, String, Void, Stats };
const char* type_name(Type t);

// Text a node holds (a name, a string literal's bytes, embedded C): a view
// of bytes that live as long as the AST does. They are the source text,
// which the SourceManager keeps unmoved for the whole run; a string
// literal; or a copy kept in the arena (Arena::keep). Nodes so hold no
// string of their own: nothing to allocate, copy or free per name.
// Unlike std::string_view it is never made from a std::string implicitly,
// since a string's bytes may not outlive the node.
class Text {
 public:
  constexpr Text() = default;
  template <size_t N>
  constexpr Text(const char (&literal)[N]) : v_(literal, N - 1) {}  // NOLINT: a literal lives forever
  // Bytes the caller knows live as long as the AST (the source text).
  static constexpr Text lasting(std::string_view v) {
    Text t;
    t.v_ = v;
    return t;
  }
  constexpr operator std::string_view() const { return v_; }
  constexpr std::string_view view() const { return v_; }
  std::string str() const { return std::string(v_); }
  constexpr size_t size() const { return v_.size(); }
  constexpr bool empty() const { return v_.empty(); }
  constexpr const char* data() const { return v_.data(); }
  constexpr char operator[](size_t i) const { return v_[i]; }
  constexpr std::string_view substr(size_t pos, size_t n = std::string_view::npos) const { return v_.substr(pos, n); }
  constexpr size_t find(std::string_view s, size_t pos = 0) const { return v_.find(s, pos); }
  constexpr size_t rfind(std::string_view s, size_t pos = std::string_view::npos) const { return v_.rfind(s, pos); }
  friend constexpr bool operator==(Text a, std::string_view b) { return a.v_ == b; }
  friend constexpr auto operator<=>(Text a, std::string_view b) { return a.v_ <=> b; }
  friend std::string operator+(const std::string& a, Text b) { return a + std::string(b.v_); }
  friend std::string operator+(Text a, const std::string& b) { return std::string(a.v_) + b; }
  friend std::string operator+(const char* a, Text b) { return a + std::string(b.v_); }
  friend std::string operator+(Text a, const char* b) { return std::string(a.v_) + b; }
  friend std::ostream& operator<<(std::ostream& os, Text t) { return os << t.v_; }

 private:
  std::string_view v_;
};

// No virtual functions: a node's kind says what it is, and the arena runs
// the destructors of the node types that have one.
struct Node {
  SourceLoc loc;
};

// Nodes are placement-new'ed into large chunks (a bump allocator: no
// malloc per node, and they sit together in memory); the arena runs the
// destructors of those whose type has one (strings, vectors), in creation
// order, and frees the chunks when it dies.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (const Owned& o : owned_) o.destroy(o.node);
    for (void* c : chunks_) ::operator delete(c);
  }

  template <typename T, typename... Args>
  T* make(SourceLoc loc, Args&&... args) {
    static_assert(std::is_base_of_v<Node, T> && alignof(T) <= kAlign);
    T* node = new (allocate(sizeof(T))) T(std::forward<Args>(args)...);
    node->loc = loc;
    ++size_;
    if constexpr (!std::is_trivially_destructible_v<T>)
      owned_.push_back({node, [](Node* n) { static_cast<T*>(n)->~T(); }});
    return node;
  }
  size_t size() const { return size_; }  // nodes made
  // Memory that lives as long as the arena (for List), aligned to kAlign.
  void* allocate_bytes(size_t n) { return allocate(n); }
  static constexpr size_t kAlign = alignof(void*);
  // A copy of `s` that lives as long as the arena.
  Text keep(std::string_view s) {
    if (s.empty()) return Text();
    char* p = static_cast<char*>(allocate(s.size()));
    std::memcpy(p, s.data(), s.size());
    return Text::lasting(std::string_view(p, s.size()));
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  // (kAlign: nodes hold pointers, 64-bit integers and smaller, so 8-byte
  // alignment, not max_align_t's 16, which would pad half of them by 8.)
  __attribute__((always_inline)) void* allocate(size_t n) {
    n = (n + kAlign - 1) & ~(kAlign - 1);
    if (__builtin_expect(n > left_, 0)) new_chunk(n);
    void* p = next_;
    next_ += n;
    left_ -= n;
    return p;
  }
  __attribute__((noinline)) void new_chunk(size_t n) {
    size_t size = std::max(n, kChunk);
    chunks_.push_back(::operator new(size));
    next_ = static_cast<char*>(chunks_.back());
    left_ = size;
  }

  struct Owned {
    Node* node;
    void (*destroy)(Node*);
  };
  std::vector<Owned> owned_;  // the nodes with destructors to run
  size_t size_ = 0;
  std::vector<void*> chunks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};

// A node's list of children or parts (call arguments, a block's
// statements): std::vector's reading interface over elements that live in
// the arena, so that a node has nothing to free. Growing takes the arena.
// A copy (of a node being cloned) shares the elements and copies them on
// its first growth; assigning one list to another is explicit (assign).
template <typename T>
class List {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;
  List() = default;
  List(const List& other) : data_(other.data_), size_(other.size_), capacity_(other.size_) {}
  List(List&& other) noexcept : List(static_cast<const List&>(other)) {}
  List& operator=(const List&) = delete;
  List& operator=(List&& other) noexcept {
    data_ = other.data_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& at(size_t i) {
    if (i >= size_) throw std::out_of_range("ast::List::at");
    return data_[i];
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("ast::List::at");
    return data_[i];
  }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  operator std::span<const T>() const { return {data_, size_}; }

  void clear() { size_ = 0; }
  void pop_back() { --size_; }
  void reserve(Arena& arena, size_t n);
  void push_back(Arena& arena, const T& v) {
    if (size_ == capacity_) reserve(arena, size_ ? 2 * size_ : 2);
    data_[size_++] = v;
  }
  T& emplace_back(Arena& arena) {
    push_back(arena, T{});
    return back();
  }
  void assign(Arena& arena, std::span<const T> from) {
    size_ = 0;
    reserve(arena, from.size());
    if (!from.empty()) std::memcpy(static_cast<void*>(data_), from.data(), from.size() * sizeof(T));
    size_ = static_cast<uint32_t>(from.size());
  }
  void assign(Arena& arena, std::initializer_list<T> from) { assign(arena, std::span<const T>(from.begin(), from.size())); }
  T* insert(Arena& arena, const T* at, const T& v) {
    size_t i = static_cast<size_t>(at - data_);
    push_back(arena, v);
    std::rotate(data_ + i, data_ + size_ - 1, data_ + size_);
    return data_ + i;
  }
  T* erase(const T* first, const T* last) {
    T* f = data_ + (first - data_);
    T* l = data_ + (last - data_);
    std::move(l, end(), f);
    size_ -= static_cast<uint32_t>(l - f);
    return f;
  }
  T* erase(const T* at) { return erase(at, at + 1); }

 private:
  T* data_ = nullptr;
  uint32_t size_ = 0, capacity_ = 0;
};

template <typename T>
void List<T>::reserve(Arena& arena, size_t n) {
  if (n <= capacity_) return;
  static_assert(alignof(T) <= Arena::kAlign);
  T* bigger = static_cast<T*>(arena.allocate_bytes(n * sizeof(T)));
  if (size_) std::memcpy(static_cast<void*>(bigger), data_, size_ * sizeof(T));
  data_ = bigger;
  capacity_ = static_cast<uint32_t>(n);
}

// ---- Symbols (filled in by elaboration) ----

struct FunctionDecl;

struct Symbol {
  enum class Scope : uint8_t { Local, Param, Global };
  std::string name;
  Scope scope = Scope::Local;
  Type type = Type::Unknown;
  int arity = -1;                // -1 unknown, 0 scalar, N keys of an array
  std::vector<Type> key_types;   // size() == arity for arrays
  SourceLoc decl;                // declaration or first use
  SourceLoc type_site;           // where the value type was first inferred
  std::vector<SourceLoc> key_sites;
  int index = 0;                 // position among its scope's symbols
  bool assigned = false;
  bool used = false;
  bool in_defined = false;       // named in @defined(...): its unread stores go without a warning
  int64_t max_entries = 0;       // global a[N]; 0: MAXMAPENTRIES
  bool wrap = false;             // global a%: a full array drops its oldest entry
  struct Expr* init = nullptr;   // global initializer (literal), may be null
  bool fixed_type = false;       // type given by a declaration or an initializer
  // Statistics: the histogram a script prints of it, if any.
  enum class Hist : uint8_t { None, Log, Linear } hist = Hist::None;
  int64_t hist_lo = 0, hist_hi = 0, hist_step = 0;
  SourceLoc hist_site;
  bool variance = false;  // read with @variance(s[, shift])
  int variance_shift = 0;
};

// ---- Expressions ----

enum class ExprKind : uint8_t {
  Number, String, Var, Index, Call, Unary, Binary, Ternary, Assign, InArray, Target, AtOp, Embedded,
  Member, Wildcard
};

enum class Op : uint8_t {
  // binary
  Add, Sub, Mul, Div, Mod, Shl, Shr, UShr, BitAnd, BitOr, BitXor,
  LogAnd, LogOr, Eq, Ne, Lt, Le, Gt, Ge, RegexMatch, RegexNoMatch, Concat,
  // unary
  Neg, Plus, Not, BitNot, PreInc, PreDec, PostInc, PostDec, AddressOf,
  // assignment: Assign, or a compound whose binary op is in AssignExpr::op
  Assign, AggregateInto,
};
const char* op_text(Op op);  // source spelling ("+", "++", "<<<"...)

struct Expr : Node {
  explicit Expr(ExprKind k) : kind(k) {}
  ExprKind kind;
  Type type = Type::Unknown;
};

struct NumberLit : Expr {
  NumberLit() : Expr(ExprKind::Number) {}
  int64_t value = 0;
};

struct StringLit : Expr {
  StringLit() : Expr(ExprKind::String) {}
  Text value;  // unescaped bytes
};

struct VarRef : Expr {
  VarRef() : Expr(ExprKind::Var) {}
  Text name;
  Symbol* sym = nullptr;
};

struct IndexExpr : Expr {
  IndexExpr() : Expr(ExprKind::Index) {}
  VarRef* array = nullptr;
  List<Expr*> keys;
};

enum class Builtin : uint8_t {
  None, Printf, Sprintf, Print, Println, Printd, Printdln, Sprint, Sprintln, Sprintd, Sprintdln, Exit
};

struct CallExpr : Expr {
  CallExpr() : Expr(ExprKind::Call) {}
  Text name;
  List<Expr*> args;
  FunctionDecl* fn = nullptr;    // user or tapset function
  Builtin builtin = Builtin::None;
  // --privilege=stapusr and a /* myproc-unprivileged */ function: the call
  // first checks that the current process is the user's.
  bool check_myproc = false;
};

struct UnaryExpr : Expr {
  UnaryExpr() : Expr(ExprKind::Unary) {}
  Op op = Op::Neg;
  Expr* operand = nullptr;
};

struct BinaryExpr : Expr {
  BinaryExpr() : Expr(ExprKind::Binary) {}
  Op op = Op::Add;
  Expr* lhs = nullptr;
  Expr* rhs = nullptr;
  SourceLoc op_loc;
};

struct TernaryExpr : Expr {
  TernaryExpr() : Expr(ExprKind::Ternary) {}
  Expr* cond = nullptr;
  Expr* then = nullptr;
  Expr* els = nullptr;
};

struct AssignExpr : Expr {
  AssignExpr() : Expr(ExprKind::Assign) {}
  Op op = Op::Assign;  // Assign, AggregateInto, or the binary op of "op="
  Expr* lhs = nullptr;
  Expr* rhs = nullptr;
  SourceLoc op_loc;
};

struct InArrayExpr : Expr {
  InArrayExpr() : Expr(ExprKind::InArray) {}
  List<Expr*> keys;
  VarRef* array = nullptr;
};

// "->field" or "[index]" applied to a target variable or an @ operator.
struct TargetComponent {
  Text field;     // empty for an index
  Expr* index = nullptr;
  SourceLoc loc;
};

// $var, $$vars, $var->a->b[3], $var$ ...
struct TargetExpr : Expr {
  TargetExpr() : Expr(ExprKind::Target) {}
  Text base;  // with its '$' or '$$'
  List<TargetComponent> components;
  Text pretty;  // "", "$", "$$"
};

// The @ operators. Other: a name the grammar takes that no pass knows
// (elaboration reports it).
enum class At : uint8_t {
  Cast, Defined, Entry, Var, Const, Kregister, Perf,                 // the program's context
  Count, Sum, Min, Max, Avg, Variance, HistLog, HistLinear,  // statistics
  Other,
};
At at_from_name(std::string_view name);  // "hist_log" -> At::HistLog

// @cast(...), @defined(...), @entry(...), @var(...), @count(...), @hist_log(...)...
struct AtOpExpr : Expr {
  AtOpExpr() : Expr(ExprKind::AtOp) {}
  Text name;  // without the '@'
  At op = At::Other;
  List<Expr*> args;
  List<TargetComponent> components;
  Text pretty;
};

// "->field" on a plain expression: a pointer whose type an earlier @cast
// gave it (stap's autocast).
struct MemberExpr : Expr {
  MemberExpr() : Expr(ExprKind::Member) {}
  Expr* base = nullptr;
  List<TargetComponent> components;
  Text pretty;
};

// "*" as an array key: any value (delete a[k, *], [*, k] in a).
struct WildcardExpr : Expr {
  WildcardExpr() : Expr(ExprKind::Wildcard) {}
};

// %{ C %} used as an expression (guru mode).
// Whether embedded C carries the marker `/* NAME */`.
inline bool has_pragma(std::string_view code, std::string_view pragma) {
  return code.find("/* " + std::string(pragma) + " */") != std::string_view::npos;
}

struct EmbeddedExpr : Expr {
  EmbeddedExpr() : Expr(ExprKind::Embedded) {}
  Text code;
  // string (the value is a const char *, else a 64-bit number), pure (no
  // effect but its value).
  bool has_pragma(std::string_view pragma) const { return ast::has_pragma(code, pragma); }
};

// ---- Statements ----

enum class StmtKind : uint8_t {
  Block, Expr, If, While, For, Foreach, Next, Break, Continue, Return, Delete, Null, Try
};

struct Stmt : Node {
  explicit Stmt(StmtKind k) : kind(k) {}
  StmtKind kind;
};

struct BlockStmt : Stmt {
  BlockStmt() : Stmt(StmtKind::Block) {}
  List<Stmt*> stmts;
};

struct ExprStmt : Stmt {
  ExprStmt() : Stmt(StmtKind::Expr) {}
  Expr* expr = nullptr;
};

struct IfStmt : Stmt {
  IfStmt() : Stmt(StmtKind::If) {}
  Expr* cond = nullptr;
  Stmt* then = nullptr;
  Stmt* els = nullptr;  // may be null
};

struct WhileStmt : Stmt {
  WhileStmt() : Stmt(StmtKind::While) {}
  Expr* cond = nullptr;
  Stmt* body = nullptr;
};

struct ForStmt : Stmt {
  ForStmt() : Stmt(StmtKind::For) {}
  Expr* init = nullptr;  // may be null
  Expr* cond = nullptr;  // may be null
  Expr* incr = nullptr;  // may be null
  Stmt* body = nullptr;
};

struct ForeachStmt : Stmt {
  ForeachStmt() : Stmt(StmtKind::Foreach) {}
  VarRef* value = nullptr;     // "v = [k] in a", may be null
  List<VarRef*> keys;
  VarRef* array = nullptr;      // or, instead:
  Expr* histogram = nullptr;    // foreach (b in @hist_log(s))
  List<Expr*> slice;    // "in a[k, *]": keys to match, may be empty
  Text aggregate;       // "in s @sum-": sort statistics by it, may be empty
  int sort_column = 0;         // 0 none, 1..N key column, -1 the value
  bool sort_descending = false;
  Expr* limit = nullptr;       // may be null
  Stmt* body = nullptr;
};

struct ReturnStmt : Stmt {
  ReturnStmt() : Stmt(StmtKind::Return) {}
  Expr* value = nullptr;  // may be null
};

struct DeleteStmt : Stmt {
  DeleteStmt() : Stmt(StmtKind::Delete) {}
  Expr* target = nullptr;  // VarRef or IndexExpr
};

struct TryStmt : Stmt {
  TryStmt() : Stmt(StmtKind::Try) {}
  BlockStmt* body = nullptr;
  VarRef* var = nullptr;  // catch (var), may be null
  BlockStmt* handler = nullptr;
};

struct SimpleStmt : Stmt {  // next, break, continue, ";"
  explicit SimpleStmt(StmtKind k = StmtKind::Null) : Stmt(k) {}
};

// ---- Declarations ----

struct ProbePointComponent {
  Text name;
  Expr* arg = nullptr;  // NumberLit or StringLit, may be null
  SourceLoc loc;
};

struct ProbePoint : Node {
  List<ProbePointComponent> components;
  bool optional = false;    // "?"
  bool sufficient = false;  // "!"
  Expr* condition = nullptr;  // "if (cond)", may be null
  // As written, numbers in decimal (stap's -p1), or with `hex_addresses`
  // those of function(ADDR) and statement(ADDR) in hex but kprobe's (its
  // -p2, which shows the points it resolved through DWARF so).
  std::string to_string(bool hex_addresses = false) const;
};

struct ProbeDecl : Node {
  List<ProbePoint*> points;
  BlockStmt* body = nullptr;
  // Elaboration: the alias name a user's probe point matched ("syscall.*"
  // -> "syscall.read"), what pn() returns; empty for points no alias made.
  std::string pn;
  // Elaboration: where the user named that alias (invalid if no alias).
  SourceLoc alias_at;
  // Elaboration: locals of the body; globals it (transitively) touches.
  std::vector<Symbol*> locals;
  std::vector<int> global_reads, global_writes;  // Symbol::index, ascending
};

// probe NAME = P, Q { prologue }   or   probe NAME += P { epilogue }
struct AliasDecl : Node {
  List<ProbePoint*> names;
  List<ProbePoint*> targets;
  bool epilogue = false;          // "+=": body is an epilogue
  BlockStmt* body = nullptr;
  BlockStmt* second = nullptr;    // "= P { prologue }, { epilogue }", may be null
};

// %{ C %} at the top level.
struct EmbeddedDecl : Node {
  Text code;
};

struct GlobalDecl : Node {
  std::string name;
  Expr* init = nullptr;  // literal, may be null
  int64_t max_entries = 0;
  bool sized = false;
  bool is_private = false;
  bool wrap = false;  // "%": a full array drops its oldest entry
  Symbol* sym = nullptr;
};

struct Param {
  std::string name;
  Type declared = Type::Unknown;
  SourceLoc loc;
};

struct FunctionDecl : Node {
  std::string name;
  SourceLoc name_loc;  // the name in "function NAME (...)"
  bool is_private = false;
  bool is_embedded = false;  // the body is embedded C
  Text embedded_code;
  Type declared = Type::Unknown;  // "function f:long (...)"
  std::vector<Param> params;
  BlockStmt* body = nullptr;
  // Elaboration.
  Type type = Type::Unknown;
  SourceLoc type_site;
  std::vector<Symbol*> param_syms;
  std::vector<Symbol*> locals;  // params first
  std::vector<int> global_reads, global_writes;  // directly, by Symbol::index
  std::vector<int> global_adds;  // statistics it adds to with <<< (shared, not a write lock)
  std::vector<FunctionDecl*> callees;
  bool used = false;
  // The C name of an overload (functions may share a name if their
  // parameter counts differ): NAME__N. Empty: the name itself.
  std::string c_name;
  const std::string& cname() const { return c_name.empty() ? name : c_name; }
  // An embedded-C body carries the pragma `/* NAME */` (pure, stable,
  // unprivileged, myproc-unprivileged, unmodified-fnargs, guru).
  bool has_pragma(std::string_view pragma) const { return is_embedded && ast::has_pragma(embedded_code, pragma); }
};

struct Script : Node {
  uint32_t file = 0;
  std::vector<ProbeDecl*> probes;
  std::vector<GlobalDecl*> globals;
  std::vector<FunctionDecl*> functions;
  std::vector<AliasDecl*> aliases;
  std::vector<EmbeddedDecl*> embedded;
};

}  // namespace stapx::ast

// Text prints as its bytes.
template <>
struct fmt::formatter<stapx::ast::Text> : fmt::formatter<std::string_view> {
  auto format(stapx::ast::Text t, format_context& ctx) const { return formatter<std::string_view>::format(t.view(), ctx); }
};
