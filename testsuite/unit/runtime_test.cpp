// The runtime's maps and statistics (runtime-c/map.c, stat.c), built in
// user space over testsuite/unit/kernel_shim.h: hashing and node pools,
// wrapping, sorting, per-CPU merging, histogram buckets, @variance and the
// histogram drawing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testsuite/unit/runtime_shim.h"

namespace {

constexpr unsigned char kLong = 1, kString = 2;

union _stpx_key L(int64_t v) {
  union _stpx_key k;
  k.l = v;
  return k;
}

TEST(RuntimeMap, InsertLookupDeleteAndPoolLimit) {
  unsigned char types[] = {kLong};
  _stpx_map* m = shim_map_alloc(1, types, kLong, 3);
  ASSERT_NE(m, nullptr);
  for (int i = 0; i < 3; ++i) {
    union _stpx_key k = L(i * 100);
    *shim_map_ref_l(m, &k) = i + 1;
  }
  union _stpx_key k = L(999);
  EXPECT_EQ(shim_map_ref_l(m, &k), nullptr) << "a full pool refuses a new key";
  union _stpx_key k100 = L(100);
  EXPECT_EQ(shim_map_get_l(m, &k100), 2);
  EXPECT_EQ(shim_map_get_l(m, &k), 0) << "absent reads as 0";
  EXPECT_FALSE(shim_map_exists(m, &k)) << "reading does not create";
  shim_map_delete(m, &k100);
  EXPECT_FALSE(shim_map_exists(m, &k100));
  EXPECT_EQ(shim_map_count(m), 2u);
  ASSERT_NE(shim_map_ref_l(m, &k), nullptr) << "a delete frees a node";
  EXPECT_EQ(shim_map_get_l(m, &k), 0) << "new nodes start zeroed";
  shim_map_clear(m);
  EXPECT_EQ(shim_map_count(m), 0u);
  shim_map_free(m);
}

// '*' keys (delete a[*, k], [*, k] in a): only the masked keys compare,
// every matching entry goes, and the others stay findable by hash.
// The size functions the module checks its load against (runtime-c/
// module.c) are what the allocations take, for maps of any keys and
// value, arrays of statistics and the rest, at any number of CPUs.
TEST(RuntimeMemory, SizeFunctionsAreWhatIsAllocated) {
  const unsigned saved_cpus = nr_cpu_ids;
  struct Shape {
    std::vector<unsigned char> keys;
    unsigned char val;
    unsigned max;
  };
  const std::vector<Shape> shapes = {{{kLong}, kLong, 1},          {{kLong}, kLong, 2048},
                                     {{kString}, kLong, 3000},     {{kLong, kString}, kString, 100},
                                     {{kString, kString, kLong}, kString, 65536}};
  for (unsigned cpus : {1u, 2u, 4u, 64u}) {
    nr_cpu_ids = cpus;
    for (const Shape& sh : shapes) {
      size_t before = shim_alloc_bytes;
      _stpx_map* m = shim_map_alloc(sh.keys.size(), sh.keys.data(), sh.val, sh.max);
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(shim_alloc_bytes - before, shim_map_bytes(sh.keys.size(), sh.keys.data(), sh.val, sh.max))
          << cpus << " CPUs, " << sh.keys.size() << " keys, " << sh.max << " entries";
      size_t bufs = 0;
      uint64_t want = shim_foreach_bufs_bytes(m, &bufs);
      EXPECT_EQ(bufs, want) << cpus << " CPUs";
      EXPECT_EQ(bufs, size_t{cpus} * sh.max * sizeof(void*));
      shim_map_free(m);
      before = shim_alloc_bytes;
      void* p = shim_pmap_alloc(sh.keys.size(), sh.keys.data(), sh.max);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(shim_alloc_bytes - before, shim_pmap_bytes(sh.keys.size(), sh.keys.data(), sh.max))
          << cpus << " CPUs, " << sh.keys.size() << " keys, " << sh.max << " entries";
      shim_pmap_free(p);
    }
    size_t stat = 0;
    EXPECT_EQ(shim_stat_bytes(&stat), stat) << cpus << " CPUs";
  }
  // By hand, for one case: a map of one long key and a long value is
  // 56-byte nodes (a 40-byte header, 8 + 8) and 8-byte buckets, a power of
  // two of them; an array of statistics is that with 48-byte values (count,
  // sum, min, max and the variance's two words), once per CPU and once
  // merged.
  nr_cpu_ids = 4;
  const unsigned char one[] = {kLong};
  EXPECT_EQ(shim_map_bytes(1, one, kLong, 3000) - shim_map_bytes(1, one, kLong, 2048),
            (3000u - 2048u) * 56u + (4096u - 2048u) * 8u);
  EXPECT_EQ(shim_pmap_bytes(1, one, 2048) - shim_pmap_bytes(1, one, 1024),
            5u * ((2048u - 1024u) * (40u + 8u + 48u) + (2048u - 1024u) * 8u));
  nr_cpu_ids = saved_cpus;
}

TEST(RuntimeMap, WildcardKeysMatchOnlyTheMaskedKeys) {
  unsigned char types[] = {kLong, kLong};
  _stpx_map* m = shim_map_alloc(2, types, kLong, 16);
  ASSERT_NE(m, nullptr);
  for (int i = 0; i < 6; ++i) {
    union _stpx_key k[2] = {L(i), L(i % 2)};
    *shim_map_ref_l(m, k) = i;
  }
  union _stpx_key odd[2] = {L(0), L(1)}, seven[2] = {L(7), L(0)};
  EXPECT_TRUE(shim_map_exists_some(m, odd, 0b10)) << "[*, 1] in a";
  EXPECT_FALSE(shim_map_exists_some(m, seven, 0b01)) << "[7, *] in a";
  EXPECT_TRUE(shim_map_exists_some(m, seven, 0)) << "[*, *] in a: any entry";
  shim_map_delete_some(m, odd, 0b10);
  EXPECT_EQ(shim_map_count(m), 3u);
  EXPECT_FALSE(shim_map_exists_some(m, odd, 0b10));
  for (int i = 0; i < 6; ++i) {
    union _stpx_key k[2] = {L(i), L(i % 2)};
    EXPECT_EQ(shim_map_exists(m, k), i % 2 == 0) << i;
  }
  shim_map_delete_some(m, seven, 0);
  EXPECT_EQ(shim_map_count(m), 0u) << "delete a[*, *] empties it";
  shim_map_free(m);
}

// The one-key functions inlined into handlers hash and compare as the
// generic ones: either finds what the other stored.
TEST(RuntimeMap, OneKeyFunctionsAgreeWithGeneric) {
  unsigned char ltypes[] = {kLong};
  _stpx_map* m = shim_map_alloc(1, ltypes, kLong, 64);
  const int64_t keys[] = {0, 1, -1, 42, INT64_MIN, INT64_MAX, int64_t(1) << 40, int64_t(2) << 40};
  for (int64_t key : keys) *shim_map_ref_l1(m, key) = key ^ 7;
  EXPECT_EQ(shim_map_count(m), 8u) << "keys that differ only in high bits stay apart";
  for (int64_t key : keys) {
    union _stpx_key k = L(key);
    EXPECT_EQ(shim_map_get_l(m, &k), key ^ 7) << key;
    ASSERT_NE(shim_map_get_l1(m, key), nullptr) << key;
    EXPECT_EQ(*shim_map_get_l1(m, key), key ^ 7);
  }
  EXPECT_EQ(shim_map_get_l1(m, 5), nullptr);
  shim_map_free(m);

  // Strings of every length around the 8-byte words, and cut ones.
  unsigned char stypes[] = {kString};
  m = shim_map_alloc(1, stypes, kLong, 64);
  std::vector<std::string> strs;
  for (size_t n = 0; n <= 20; ++n) strs.push_back(std::string(n, 'a'));
  strs.push_back(std::string(127, 'z'));
  for (size_t i = 0; i < strs.size(); ++i) {
    if (i % 2) {
      *shim_map_ref_s1(m, strs[i].c_str()) = int64_t(i);
    } else {
      union _stpx_key k;
      k.s = strs[i].c_str();
      *shim_map_ref_l(m, &k) = int64_t(i);
    }
  }
  EXPECT_EQ(shim_map_count(m), strs.size());
  for (size_t i = 0; i < strs.size(); ++i) {
    union _stpx_key k;
    k.s = strs[i].c_str();
    EXPECT_EQ(shim_map_get_l(m, &k), int64_t(i)) << strs[i].size();
    ASSERT_NE(shim_map_get_s1(m, strs[i].c_str()), nullptr) << strs[i].size();
    EXPECT_EQ(*shim_map_get_s1(m, strs[i].c_str()), int64_t(i)) << strs[i].size();
  }
  // A key longer than MAXSTRINGLEN - 1 is its first 127 bytes.
  std::string longer = std::string(127, 'z') + "tail";
  ASSERT_NE(shim_map_get_s1(m, longer.c_str()), nullptr);
  EXPECT_EQ(*shim_map_get_s1(m, longer.c_str()), int64_t(strs.size() - 1));
  *shim_map_ref_s1(m, longer.c_str()) += 100;
  EXPECT_EQ(shim_map_count(m), strs.size()) << "the cut key is the same entry";
  EXPECT_EQ(shim_map_get_s1(m, "ab"), nullptr);
  EXPECT_EQ(shim_map_get_s1(m, "aaaaaaaab"), nullptr) << "same length as an entry, different last byte";
  shim_map_free(m);
}

TEST(RuntimeMap, StringKeysAreCutAtMaxStringLen) {
  unsigned char types[] = {kString, kLong};
  _stpx_map* m = shim_map_alloc(2, types, kString, 8);
  std::string longkey(300, 'k');
  union _stpx_key k[2];
  k[0].s = longkey.c_str();
  k[1].l = -1;
  char* v = shim_map_ref_s(m, k);
  ASSERT_NE(v, nullptr);
  std::snprintf(v, 128, "value");
  std::string cut(127, 'k');
  k[0].s = cut.c_str();
  EXPECT_STREQ(shim_map_get_s(m, k), "value") << "the key was stored cut to MAXSTRINGLEN - 1";
  k[1].l = 1;
  EXPECT_STREQ(shim_map_get_s(m, k), "") << "the second key differs";
  shim_map_free(m);
}

TEST(RuntimeMap, WrappingDropsTheOldest) {
  unsigned char types[] = {kLong};
  _stpx_map* m = shim_map_alloc(1, types, kLong, 3);
  shim_map_wrap(m);
  for (int i = 1; i <= 5; ++i) {
    union _stpx_key k = L(i);
    ASSERT_NE(shim_map_ref_l(m, &k), nullptr);
    *shim_map_ref_l(m, &k) = i;
  }
  int64_t keys[8];
  ASSERT_EQ(shim_map_sorted_keys(m, -1, 0, 0, keys, 8), 3u);
  EXPECT_EQ(keys[0], 3);
  EXPECT_EQ(keys[1], 4);
  EXPECT_EQ(keys[2], 5);
  shim_map_free(m);
}

TEST(RuntimeMap, SortByKeyAndValue) {
  unsigned char types[] = {kLong};
  _stpx_map* m = shim_map_alloc(1, types, kLong, 16);
  int64_t vals[] = {30, -10, 20, 0};
  int64_t ks[] = {4, 1, 3, -2};
  for (int i = 0; i < 4; ++i) {
    union _stpx_key k = L(ks[i]);
    *shim_map_ref_l(m, &k) = vals[i];
  }
  int64_t out[8];
  shim_map_sorted_keys(m, 1, 0, 0, out, 8);
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{-2, 1, 3, 4}));
  shim_map_sorted_keys(m, 1, 1, 0, out, 8);
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{4, 3, 1, -2}));
  shim_map_sorted_keys(m, 0, 0, 0, out, 8);  // by value ascending
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{1, -2, 3, 4}));
  // Equal values: by the key, ascending in both directions.
  union _stpx_key k7 = L(7), k0 = L(0);
  *shim_map_ref_l(m, &k7) = 20;
  *shim_map_ref_l(m, &k0) = 20;
  ASSERT_EQ(shim_map_sorted_keys(m, 0, 0, 0, out, 8), 6u);
  EXPECT_EQ(std::vector<int64_t>(out, out + 6), (std::vector<int64_t>{1, -2, 0, 3, 7, 4}));
  shim_map_sorted_keys(m, 0, 1, 0, out, 8);
  EXPECT_EQ(std::vector<int64_t>(out, out + 6), (std::vector<int64_t>{4, 0, 3, 7, -2, 1}));
  // A deleted entry's node serves the next insert, which sorts in.
  shim_map_delete(m, &k7);
  union _stpx_key k9 = L(9);
  *shim_map_ref_l(m, &k9) = -20;
  ASSERT_EQ(shim_map_sorted_keys(m, 1, 0, 0, out, 8), 6u);
  EXPECT_EQ(std::vector<int64_t>(out, out + 6), (std::vector<int64_t>{-2, 0, 1, 3, 4, 9}));
  shim_map_sorted_keys(m, 0, 0, 0, out, 8);
  EXPECT_EQ(std::vector<int64_t>(out, out + 6), (std::vector<int64_t>{9, 1, -2, 0, 3, 4}));
  shim_map_free(m);
}

TEST(RuntimeMap, SortByTheSecondKey) {
  unsigned char types[] = {kLong, kLong};
  _stpx_map* m = shim_map_alloc(2, types, kLong, 16);
  int64_t pairs[][2] = {{1, 9}, {2, 7}, {3, 9}, {4, 8}};
  for (auto& p : pairs) {
    union _stpx_key k[2] = {L(p[0]), L(p[1])};
    *shim_map_ref_l(m, k) = 1;
  }
  int64_t out[8];
  shim_map_sorted_keys(m, 2, 0, 0, out, 8);  // first keys, in the order of the second
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{2, 4, 1, 3}));
  shim_map_sorted_keys(m, 2, 1, 0, out, 8);
  EXPECT_EQ(std::vector<int64_t>(out, out + 4), (std::vector<int64_t>{1, 3, 4, 2}));
  shim_map_free(m);
}

TEST(RuntimeStat, PerCpuPartsMerge) {
  shim_stat* s = shim_stat_new(0, 0, 0, 0, 0, 0);
  shim_stat_add(s, 0, 5);
  shim_stat_add(s, 1, -3);
  shim_stat_add(s, 1, 10);
  int64_t count, sum, min, max;
  shim_stat_read(s, &count, &sum, &min, &max);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(sum, 12);
  EXPECT_EQ(min, -3);
  EXPECT_EQ(max, 10);
  shim_stat_free(s);
}

TEST(RuntimeStat, LogBuckets) {
  shim_stat* s = shim_stat_new(1, 0, 0, 0, 0, 0);
  EXPECT_EQ(shim_stat_bucket_of(s, 0), 64u);
  EXPECT_EQ(shim_stat_bucket_of(s, 1), 65u);
  EXPECT_EQ(shim_stat_bucket_of(s, 3), 66u);
  EXPECT_EQ(shim_stat_bucket_of(s, 4), 67u);
  EXPECT_EQ(shim_stat_bucket_of(s, -1), 63u);
  EXPECT_EQ(shim_stat_bucket_of(s, -3), 62u);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MAX), 127u);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MIN), 0u);
  shim_stat_add(s, 0, 2);
  shim_stat_add(s, 1, 3);
  EXPECT_EQ(shim_stat_bucket(s, 66), 2) << "both CPUs' buckets merge";
  shim_stat_free(s);
}

TEST(RuntimeStat, LinearBuckets) {
  shim_stat* s = shim_stat_new(2, 0, 20, 5, 0, 0);
  EXPECT_EQ(shim_stat_bucket_of(s, -1), 0u);
  EXPECT_EQ(shim_stat_bucket_of(s, 0), 1u);
  EXPECT_EQ(shim_stat_bucket_of(s, 4), 1u);
  EXPECT_EQ(shim_stat_bucket_of(s, 5), 2u);
  EXPECT_EQ(shim_stat_bucket_of(s, 20), 5u);
  EXPECT_EQ(shim_stat_bucket_of(s, 24), 5u) << "the last bucket is [hi, hi + step)";
  EXPECT_EQ(shim_stat_bucket_of(s, 25), 6u);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MIN), 0u);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MAX), 6u);
  shim_stat_free(s);
  // 0..17 by 5: buckets from 0, 5, 10 and 15; 20 and past overflow.
  s = shim_stat_new(2, 0, 17, 5, 0, 0);
  EXPECT_EQ(shim_stat_bucket_of(s, 19), 4u);
  EXPECT_EQ(shim_stat_bucket_of(s, 20), 5u);
  shim_stat_free(s);
  // Negative bounds, and a range wider than int64_t's positive half.
  s = shim_stat_new(2, -10, 10, 5, 0, 0);
  EXPECT_EQ(shim_stat_bucket_of(s, -10), 1u);
  EXPECT_EQ(shim_stat_bucket_of(s, 12), 5u);
  EXPECT_EQ(shim_stat_bucket_of(s, 15), 6u);
  shim_stat_free(s);
  s = shim_stat_new(2, INT64_MIN / 2, INT64_MAX / 2, INT64_MAX / 4, 0, 0);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MIN / 2), 1u);
  EXPECT_EQ(shim_stat_bucket_of(s, INT64_MAX), 6u);
  shim_stat_free(s);
}

TEST(RuntimeStat, VarianceMatchesStapsDocumentedExamples) {
  // man stap: @variance of 1..5 is 12 (integer Welford, on one CPU); with
  // bit-shift 1 it is 2. One value, or equal values: 0.
  shim_stat* a = shim_stat_new(0, 0, 0, 0, 1, 0);
  shim_stat* b = shim_stat_new(0, 0, 0, 0, 1, 1);
  shim_stat* split = shim_stat_new(0, 0, 0, 0, 1, 0);
  for (int i = 1; i <= 5; ++i) {
    shim_stat_add(a, 0, i);
    shim_stat_add(b, 0, i);
    shim_stat_add(split, i % 2, i);
  }
  EXPECT_EQ(shim_stat_variance(a), 12);
  EXPECT_EQ(shim_stat_variance(b), 2);
  // Parts on two CPUs combine by the total-variance formula; the integer
  // rounding of each part differs from one CPU's, so the figure does too
  // (here the true 2.5, truncated).
  EXPECT_EQ(shim_stat_variance(split), 2);
  shim_stat_free(split);
  shim_stat* c = shim_stat_new(0, 0, 0, 0, 1, 0);
  shim_stat_add(c, 0, 7);
  EXPECT_EQ(shim_stat_variance(c), 0);
  shim_stat_add(c, 1, 7);
  EXPECT_EQ(shim_stat_variance(c), 0);
  shim_stat_free(a);
  shim_stat_free(b);
  shim_stat_free(c);
}

TEST(RuntimeStat, HistogramDrawing) {
  shim_stat* s = shim_stat_new(1, 0, 0, 0, 0, 0);
  char out[8192];
  EXPECT_EQ(shim_stat_print(s, out, sizeof(out)), 0u) << "no values: nothing drawn";
  shim_stat_add(s, 0, 1);
  shim_stat_add(s, 1, 1);
  shim_stat_add(s, 0, 8);
  shim_stat_print(s, out, sizeof(out));
  std::string bar(50, ' ');
  auto row = [&](const char* label, int count) {
    std::string b = std::string(count, '@') + bar.substr(count);
    char line[128];
    std::snprintf(line, sizeof(line), "%5s |%s %d\n", label, b.c_str(), count);
    return std::string(line);
  };
  std::string want = "value |" + std::string(50, '-') + " count\n" + row("0", 0) + row("1", 2) + row("2", 0) +
                     row("4", 0) + row("8", 1) + row("16", 0) + row("32", 0) + "\n";
  EXPECT_EQ(std::string(out), want);
  // sprint(): the same text, cut to what a MAXSTRINGLEN string holds.
  char str[128];
  shim_stat_sprint(s, str);
  EXPECT_EQ(std::string(str), want.substr(0, sizeof(str) - 1));
  shim_stat_free(s);
}

}  // namespace
