// The index of inlined instances (see inline_index.h): built by one walk
// over every unit's DIE tree, stored as one flat binary image that is
// written to the cache as it is and mapped from it as it is:
//
//   Header                 magic, counts, and the key of the file indexed
//   key                    "path|size|mtime", checked on reading
//   NameRec[names]         sorted by name: the name (in the pool) and its
//                          instances (a run of the instance array)
//   InlineInstance[insts]  grouped by name
//   pool                   the names' bytes
//
// The image is only ever read by the machine that wrote it (a user's
// cache), so it is in host byte order. Anything inconsistent in a cached
// image makes it be rebuilt, never trusted.
#include "translator/debuginfo/inline_index.h"

#include <dwarf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include "support/cache.h"
#include "support/glob.h"


namespace stapx::debug {

namespace {

constexpr char kMagic[8] = {'s', 't', 'p', 'x', 'i', 'n', 'l', '1'};

struct Header {
  char magic[8];
  uint32_t key_size;
  uint32_t names;
  uint64_t instances;
  uint64_t pool_size;
};

struct NameRec {
  uint32_t offset;  // in the pool
  uint32_t size;
  uint32_t first;  // index of its first instance
  uint32_t count;
};

static_assert(sizeof(Header) == 32 && sizeof(NameRec) == 16 && sizeof(InlineInstance) == 24);

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Where the parts of an image are, once checked.
struct Layout {
  const Header* header = nullptr;
  std::string_view key;
  const NameRec* names = nullptr;
  const InlineInstance* instances = nullptr;
  const char* pool = nullptr;
};

bool parse_image(const char* data, size_t size, Layout& out) {
  if (size < sizeof(Header)) return false;
  const auto* h = reinterpret_cast<const Header*>(data);
  if (std::memcmp(h->magic, kMagic, sizeof kMagic) != 0) return false;
  size_t at = sizeof(Header);
  size_t key_end = at + align8(h->key_size);
  if (key_end > size) return false;
  out.key = std::string_view(data + at, h->key_size);
  at = key_end;
  if ((size - at) / sizeof(NameRec) < h->names) return false;
  out.names = reinterpret_cast<const NameRec*>(data + at);
  at += h->names * sizeof(NameRec);
  if ((size - at) / sizeof(InlineInstance) < h->instances) return false;
  out.instances = reinterpret_cast<const InlineInstance*>(data + at);
  at += h->instances * sizeof(InlineInstance);
  if (size - at != h->pool_size) return false;
  out.pool = data + at;
  for (uint32_t i = 0; i < h->names; ++i) {
    const NameRec& n = out.names[i];
    if (n.offset > h->pool_size || n.size > h->pool_size - n.offset || n.first > h->instances ||
        n.count > h->instances - n.first)
      return false;
  }
  out.header = h;
  return true;
}

// Every inlined instance that has code, below each out-of-line
// subprogram (an abstract, inline-only definition has no address and
// holds none).
class Walker {
 public:
  explicit Walker(Dwarf* dw) : dw_(dw) {}

  void run() {
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw_, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dw_, off + hsize, &cu)) walk(cu, 0);
      off = next;
    }
  }

  std::vector<std::pair<const char*, InlineInstance>> found;

 private:
  Dwarf* dw_;
  // An instance's name is its abstract origin's: looked up once per origin.
  std::unordered_map<Dwarf_Off, const char*> origin_names_;

  const char* name_of(Dwarf_Die& inst) {
    Dwarf_Attribute a;
    Dwarf_Die origin;
    if (!dwarf_attr(&inst, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin))
      return dwarf_diename(&inst);
    auto [it, fresh] = origin_names_.try_emplace(dwarf_dieoffset(&origin), nullptr);
    if (fresh) it->second = dwarf_diename(&origin);
    return it->second;
  }

  // `outer`: the enclosing out-of-line subprogram, 0 outside any.
  void walk(Dwarf_Die& scope, Dwarf_Off outer) {
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) return;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_subprogram) {
        Dwarf_Addr lo, base, start, end;
        if (dwarf_lowpc(&child, &lo) == 0 || dwarf_ranges(&child, 0, &base, &start, &end) > 0)
          walk(child, dwarf_dieoffset(&child));
        continue;
      }
      if (!outer) continue;
      if (tag == DW_TAG_inlined_subroutine) {
        Dwarf_Addr pc = 0;
        bool has_pc = dwarf_entrypc(&child, &pc) == 0;
        if (!has_pc) {
          Dwarf_Addr base, start, end;
          has_pc = dwarf_ranges(&child, 0, &base, &start, &end) > 0;
          pc = start;
        }
        const char* name = has_pc ? name_of(child) : nullptr;
        if (name && *name) found.push_back({name, {dwarf_dieoffset(&child), outer, pc}});
        walk(child, outer);
      } else if (tag == DW_TAG_lexical_block) {
        walk(child, outer);
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }
};

std::string build_image(Dwarf* dw, const std::string& key) {
  Walker w(dw);
  w.run();
  auto& found = w.found;
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  std::vector<NameRec> names;
  std::string pool;
  for (size_t i = 0; i < found.size(); ++i) {
    if (names.empty() || std::strcmp(found[i].first, found[i - 1].first) != 0) {
      size_t len = std::strlen(found[i].first);
      names.push_back({static_cast<uint32_t>(pool.size()), static_cast<uint32_t>(len), static_cast<uint32_t>(i), 0});
      pool.append(found[i].first, len);
    }
    ++names.back().count;
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.key_size = static_cast<uint32_t>(key.size());
  h.names = static_cast<uint32_t>(names.size());
  h.instances = found.size();
  h.pool_size = pool.size();
  std::string image(reinterpret_cast<const char*>(&h), sizeof h);
  image += key;
  image.resize(sizeof h + align8(key.size()), '\0');
  image.append(reinterpret_cast<const char*>(names.data()), names.size() * sizeof(NameRec));
  for (const auto& [name, inst] : found) image.append(reinterpret_cast<const char*>(&inst), sizeof inst);
  image += pool;
  return image;
}

class ImageIndex final : public InlineIndex {
 public:
  ~ImageIndex() override {
    if (map_) munmap(map_, map_size_);
  }

  // A cached image, if it is one of the file `key` names.
  bool map(const std::string& file, const std::string& key) {
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      map_size_ = static_cast<size_t>(st.st_size);
      void* m = mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
      map_ = m == MAP_FAILED ? nullptr : m;
    }
    close(fd);
    if (!map_ || !parse_image(static_cast<const char*>(map_), map_size_, layout_) || layout_.key != key) return false;
    origin_ = "cached index " + file;
    return true;
  }

  bool adopt(std::string image, std::string origin) {
    image_ = std::move(image);
    origin_ = std::move(origin);
    return parse_image(image_.data(), image_.size(), layout_);
  }

  void find(const std::string& pattern,
            const std::function<void(std::string_view, const InlineInstance&)>& f) const override {
    const NameRec* begin = layout_.names;
    const NameRec* end = begin + layout_.header->names;
    auto name = [&](const NameRec& n) { return std::string_view(layout_.pool + n.offset, n.size); };
    // Names are sorted: the literal part of the pattern before its first
    // wildcard narrows the names to test to one run.
    std::string_view prefix = support::glob_prefix(pattern);
    const NameRec* it = std::lower_bound(begin, end, prefix,
                                         [&](const NameRec& n, std::string_view p) { return name(n) < p; });
    auto each = [&](const NameRec& r) {
      for (uint32_t i = 0; i < r.count; ++i) f(name(r), layout_.instances[r.first + i]);
    };
    if (!support::is_glob(pattern)) {
      if (it != end && name(*it) == prefix) each(*it);
      return;
    }
    for (; it != end && name(*it).substr(0, prefix.size()) == prefix; ++it)
      if (support::glob_match(pattern, name(*it))) each(*it);
  }

  size_t names() const override { return layout_.header->names; }
  size_t instances() const override { return layout_.header->instances; }
  const std::string& origin() const override { return origin_; }

 private:
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string image_;
  Layout layout_;
  std::string origin_;
};

}  // namespace

std::unique_ptr<InlineIndex> InlineIndex::open(Dwarf* dw, const std::string& path, const std::string& cache_dir) {
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (ec) key = path;
  struct stat st;
  if (stat(path.c_str(), &st) == 0)
    key += "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  std::string file =
      cache_dir.empty() ? "" : cache_dir + "/inlines-" + std::to_string(std::hash<std::string>{}(key)) + ".bin";
  if (!file.empty()) {
    auto cached = std::make_unique<ImageIndex>();
    if (cached->map(file, key)) return cached;
  }
  std::string image = build_image(dw, key);
  if (!file.empty()) support::write_cache_file(file, image);
  auto built = std::make_unique<ImageIndex>();
  if (!built->adopt(std::move(image), file.empty() ? "built" : "built, cached in " + file)) return nullptr;
  return built;
}

}  // namespace stapx::debug
