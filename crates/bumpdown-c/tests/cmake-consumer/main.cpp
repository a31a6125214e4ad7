// A program of a project that finds bumpdown with find_package(bumpdown CONFIG) and
// exercises every part of bumpdown.hpp. CMakeLists.txt builds it twice, against
// bumpdown::bumpdown (libbumpdown.so) and bumpdown::bumpdown_static (libbumpdown.a);
// run.sh runs both. Each check counts as passed or failed; the last line printed is
// "N passed, N failed", and the exit status is non-zero if anything failed.
#include <bumpdown.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifndef CONSUMER_LINKAGE
#define CONSUMER_LINKAGE "unknown"
#endif

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const char *what, int line)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        std::printf("FAILED line %d: %s\n", line, what);
    }
}

#define CHECK(cond) check((cond), #cond, __LINE__)

// Whether `f` throws exactly an exception of type E (or one derived from it).
template <class E, class F> bool throws(F &&f)
{
    try {
        f();
    } catch (const E &) {
        return true;
    } catch (...) {
        return false;
    }
    return false;
}

bool aligned(const void *p, std::size_t align)
{
    return reinterpret_cast<std::uintptr_t>(p) % align == 0;
}

bool inside(const void *p, const void *buf, std::size_t len)
{
    auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(buf);
    return a >= b && a < b + len;
}

struct point {
    int x;
    int y;
};

struct alignas(64) line64 {
    unsigned char bytes[64];
};

// Not trivially destructible: only make_never_destroyed accepts it.
struct counted {
    static int live;
    int value;
    explicit counted(int v) : value(v) { live++; }
    counted(const counted &) = delete;
    counted &operator=(const counted &) = delete;
    ~counted() { live--; }
};
int counted::live = 0;

struct throws_on_construct {
    explicit throws_on_construct(int) { throw std::runtime_error("constructor"); }
};

// Whether make<T> accepts T (it static_asserts otherwise; run.sh checks that separately).
static_assert(std::is_trivially_destructible_v<point>);
static_assert(!std::is_trivially_destructible_v<counted>);

using arena_string = std::basic_string<char, std::char_traits<char>, bumpdown::arena_allocator<char>>;

void test_arena()
{
    bumpdown::arena a;
    CHECK(a.get() != nullptr);
    CHECK(a.stats().used == 0 && a.stats().chunks == 0); // nothing allocated up front
    void *p = a.alloc(100, 16);
    CHECK(p != nullptr && aligned(p, 16));
    std::memset(p, 0xab, 100);
    CHECK(a.stats().used >= 100);
    void *q = a.alloc(24);
    CHECK(aligned(q, alignof(std::max_align_t)));
    errno = 0;
    CHECK(a.try_alloc(8, 3) == nullptr && errno == EINVAL); // not a power of two
    CHECK(throws<std::bad_alloc>([&] { (void)a.alloc(8, 3); }));
    CHECK(a.try_alloc(32, 32) != nullptr);

    // The raw handle drives the C API, e.g. a cursor in a hot loop.
    std::size_t before = a.stats().used;
    bd_cursor c;
    CHECK(bd_cursor_open(&c, a.get()) == BD_OK);
    bool all = true;
    for (int i = 0; i < 100; i++)
        all = all && bd_cursor_alloc(&c, 16, 16) != nullptr;
    bd_cursor_close(&c);
    CHECK(all && a.stats().used == before + 1600);
}

void test_options()
{
    bd_options opts{};
    opts.limit = 1 << 20;
    opts.initial_capacity = 64 << 10;
    bumpdown::arena a(opts);
    CHECK(a.stats().capacity >= (64 << 10)); // the first chunk exists already
    CHECK(a.alloc(1000) != nullptr);
    errno = 0;
    CHECK(a.try_alloc(2 << 20, 8) == nullptr && errno == ENOMEM); // past the limit
    CHECK(throws<std::bad_alloc>([&] { (void)a.alloc(2 << 20, 8); }));
    CHECK(a.alloc(1000) != nullptr); // still works below the limit
}

void test_fixed()
{
    alignas(16) static unsigned char buf[4096];
    bumpdown::arena f(buf, sizeof buf);
    bd_stats s = f.stats();
    CHECK(s.capacity > 0 && s.capacity < sizeof buf && s.held == 0);
    void *first = f.alloc(64, 16);
    CHECK(inside(first, buf, sizeof buf));
    std::memset(first, 0x5a, 64);
    errno = 0;
    CHECK(f.try_alloc(8192, 8) == nullptr && errno == ENOMEM);
    CHECK(throws<std::bad_alloc>([&] { (void)f.alloc(8192, 8); }));
    // Fill it up: allocations succeed until the buffer is full, then throw.
    int count = 0;
    bool threw = false;
    while (count < 1000) {
        try {
            void *p = f.alloc(64, 8);
            if (!inside(p, buf, sizeof buf))
                break;
            count++;
        } catch (const std::bad_alloc &) {
            threw = true;
            break;
        }
    }
    CHECK(threw && count > 10 && count < 64);
    CHECK(static_cast<unsigned char *>(first)[63] == 0x5a); // a failure invalidates nothing
    f.reset();
    CHECK(f.stats().used == 0 && f.alloc(64, 8) != nullptr); // reusable after a reset

    alignas(16) static unsigned char tiny[16];
    CHECK(throws<std::bad_alloc>([&] { bumpdown::arena t(tiny, sizeof tiny); }));
    CHECK(throws<std::bad_alloc>([&] { bumpdown::arena t(nullptr, 4096); }));
}

void test_make()
{
    bumpdown::arena a;
    point *pt = a.make<point>(3, 4); // an aggregate: braces
    CHECK(pt->x == 3 && pt->y == 4 && aligned(pt, alignof(point)));
    {
        // make<T>() value-initializes: fill the memory it will get with garbage first.
        bumpdown::scope s(a);
        std::memset(a.alloc(sizeof(point), alignof(point)), 0xff, sizeof(point));
    }
    point *zero = a.make<point>();
    CHECK(zero->x == 0 && zero->y == 0);
    line64 *l = a.make<line64>();
    CHECK(aligned(l, 64));
    auto *pair = a.make<std::pair<int, double>>(7, 2.5); // a constructor: parentheses
    CHECK(pair->first == 7 && pair->second == 2.5);

    counted *c = a.make_never_destroyed<counted>(42);
    CHECK(c->value == 42 && counted::live == 1);
    a.reset();
    CHECK(counted::live == 1); // the arena never runs destructors

    std::size_t before = a.stats().used;
    CHECK(throws<std::runtime_error>([&] { (void)a.make<throws_on_construct>(1); }));
    CHECK(a.stats().used > before); // the memory stays used until a reset or rewind
    CHECK(a.make<point>(1, 2)->y == 2);

    // The use make_never_destroyed is for: a container whose memory is in the arena.
    bumpdown::memory_resource mr(a);
    auto *v = a.make_never_destroyed<std::pmr::vector<int>>(&mr);
    for (int i = 0; i < 1000; i++)
        v->push_back(i);
    CHECK(v->size() == 1000 && (*v)[999] == 999 && v->get_allocator().resource() == &mr);
}

void test_reset()
{
    bumpdown::arena a;
    for (int i = 0; i < 100; i++)
        (void)a.alloc(10000, 8);
    bd_stats s = a.stats();
    CHECK(s.used >= 1000000 && s.peak_used >= s.used);
    a.reset();
    bd_stats r = a.stats();
    CHECK(r.used == 0 && r.peak_used == s.peak_used && r.capacity > 0); // chunks kept
    CHECK(a.alloc(10000, 8) != nullptr && a.stats().used >= 10000);
    a.reset(0); // keeps no chunk
    bd_stats z = a.stats();
    CHECK(z.used == 0 && z.held < r.held);
    CHECK(a.alloc(100) != nullptr);
}

void test_move()
{
    bumpdown::arena a;
    (void)a.alloc(8);
    bd_arena *h = a.get();
    bumpdown::arena b(std::move(a));
    CHECK(b.get() == h && a.get() == nullptr);
    CHECK(throws<std::bad_alloc>([&] { (void)a.alloc(8); })); // an empty arena cannot allocate
    CHECK(a.stats().used == 0 && b.stats().used >= 8);
    a.reset(); // harmless on an empty arena
    bumpdown::arena c;
    c = std::move(b); // destroys c's own arena, takes b's
    CHECK(c.get() == h && b.get() == nullptr);
    bd_arena *raw = c.release();
    CHECK(raw == h && c.get() == nullptr);
    bumpdown::arena d = bumpdown::arena::adopt(raw);
    CHECK(d.get() == raw && d.alloc(8) != nullptr);
    // The scope, allocator and resource hold the handle, so a move keeps them valid.
    bumpdown::arena_allocator<int> al(d);
    bumpdown::arena e(std::move(d));
    CHECK(al == bumpdown::arena_allocator<int>(e));
}

void test_scope()
{
    bumpdown::arena a;
    (void)a.alloc(100);
    std::size_t before = a.stats().used;
    {
        bumpdown::scope s(a);
        (void)a.alloc(1000);
        (void)a.make<point>(1, 2);
        CHECK(a.stats().used > before + 1000);
    }
    CHECK(a.stats().used == before);

    {
        // rewind() inside a loop: the memory is reused every iteration.
        bumpdown::scope s(a);
        bool rewound = true;
        for (int i = 0; i < 100; i++) {
            (void)a.alloc(10000, 8);
            rewound = rewound && s.rewind();
        }
        CHECK(rewound && a.stats().used == before);
        CHECK(a.stats().peak_used < before + 2 * 10000 + 1000);
    }

    {
        bumpdown::scope outer(a);
        (void)a.alloc(300);
        std::size_t mid = a.stats().used;
        {
            bumpdown::scope inner(a);
            (void)a.alloc(500);
        }
        CHECK(a.stats().used == mid);
    }
    CHECK(a.stats().used == before);

    try {
        bumpdown::scope s(a);
        (void)a.alloc(500);
        throw std::runtime_error("leave early");
    } catch (const std::runtime_error &) {
    }
    CHECK(a.stats().used == before); // rewound while unwinding

    {
        bumpdown::scope s(a);
        (void)a.alloc(10);
        a.reset(); // the checkpoint goes stale: rewinding is refused, the arena untouched
        CHECK(!s.rewind());
        (void)a.alloc(40);
        errno = 0;
    }
    CHECK(errno == 0);                  // the destructor's refused rewind left errno alone
    CHECK(a.stats().used >= 40);        // and the arena as it was
}

void test_allocator()
{
    bumpdown::arena a;
    std::size_t before = a.stats().used;
    std::vector<int, bumpdown::arena_allocator<int>> v(a);
    for (int i = 0; i < 100000; i++)
        v.push_back(i);
    long long sum = 0;
    for (int x : v)
        sum += x;
    CHECK(v.size() == 100000 && sum == 100000LL * 99999 / 2);
    // The elements, and the buffers growth left behind (deallocate is a no-op).
    CHECK(a.stats().used >= before + 100000 * sizeof(int));
    CHECK(v.get_allocator() == bumpdown::arena_allocator<int>(a));

    bumpdown::arena b;
    bumpdown::arena_allocator<int> ai(a);
    bumpdown::arena_allocator<long> al(ai); // rebinding copy
    CHECK(al == ai && !(al != ai));
    CHECK(ai != bumpdown::arena_allocator<int>(b) && !(ai == bumpdown::arena_allocator<int>(b)));
    CHECK(bumpdown::arena_allocator<int>(a.get()) == ai);

    std::size_t used = a.stats().used;
    int *p = ai.allocate(10);
    CHECK(aligned(p, alignof(int)) && a.stats().used >= used + 40);
    used = a.stats().used;
    ai.deallocate(p, 10);
    CHECK(a.stats().used == used);
    CHECK(throws<std::bad_array_new_length>([&] { (void)ai.allocate(ai.max_size() + 1); }));

    using map_alloc = bumpdown::arena_allocator<std::pair<const int, int>>;
    std::map<int, int, std::less<int>, map_alloc> m{map_alloc(a)};
    for (int i = 0; i < 1000; i++)
        m[i] = i * i;
    CHECK(m.size() == 1000 && m.at(500) == 250000 && a.stats().used > used + 1000 * 2 * sizeof(int));

    used = a.stats().used;
    arena_string s("a string too long for the small-string buffer", a);
    s += ", made longer";
    CHECK(s == "a string too long for the small-string buffer, made longer");
    CHECK(a.stats().used > used && s.get_allocator() == bumpdown::arena_allocator<char>(a));

    // A container on a small fixed arena runs out and throws std::bad_alloc.
    alignas(16) static unsigned char buf[4096];
    bumpdown::arena f(buf, sizeof buf);
    std::vector<int, bumpdown::arena_allocator<int>> small(f);
    CHECK(throws<std::bad_alloc>([&] {
        for (int i = 0; i < 10000; i++)
            small.push_back(i);
    }));
    CHECK(!small.empty() && small.back() == static_cast<int>(small.size()) - 1);
}

void test_memory_resource()
{
    bumpdown::arena a;
    bumpdown::memory_resource mr(a);
    std::size_t before = a.stats().used;
    std::pmr::vector<int> v(&mr);
    for (int i = 0; i < 10000; i++)
        v.push_back(i);
    CHECK(v.size() == 10000 && v[9999] == 9999 && a.stats().used >= before + 10000 * sizeof(int));

    std::size_t used = a.stats().used;
    std::pmr::string s("a pmr string too long for the small-string buffer", &mr);
    CHECK(s.size() == 49 && a.stats().used > used);
    std::pmr::vector<std::pmr::string> names(&mr);
    names.emplace_back("an element that gets the vector's resource too");
    CHECK(names[0].get_allocator().resource() == &mr);

    void *p = mr.allocate(64, 64);
    CHECK(aligned(p, 64));
    used = a.stats().used;
    mr.deallocate(p, 64, 64);
    CHECK(a.stats().used == used);

    bumpdown::memory_resource same(a);
    bumpdown::memory_resource raw(a.get());
    bumpdown::arena b;
    bumpdown::memory_resource other(b);
    CHECK(mr.is_equal(same) && mr == same && raw.is_equal(mr) && raw.get() == a.get());
    CHECK(!mr.is_equal(other) && mr != other);
    CHECK(!mr.is_equal(*std::pmr::new_delete_resource()));

    alignas(16) static unsigned char buf[4096];
    bumpdown::arena f(buf, sizeof buf);
    bumpdown::memory_resource fr(f);
    CHECK(throws<std::bad_alloc>([&] { (void)fr.allocate(1 << 20, 8); }));
    std::pmr::vector<int> small(&fr);
    CHECK(throws<std::bad_alloc>([&] {
        for (int i = 0; i < 10000; i++)
            small.push_back(i);
    }));
}

void test_vm_arena()
{
    bumpdown::vm_arena v(8 << 20);
    CHECK(v.get() != nullptr && v.stats().reserved >= (8 << 20) && v.stats().used == 0);
    char *p = static_cast<char *>(v.alloc(100, 16));
    CHECK(aligned(p, 16));
    std::memset(p, 'x', 100);
    char *grown = static_cast<char *>(v.realloc_last(p, 100, 5000, 16));
    CHECK(grown == p && p[99] == 'x' && v.stats().used >= 5000); // in place: the newest block
    point *pt = v.make<point>(5, 6);
    CHECK(pt->x == 5 && pt->y == 6 && aligned(pt, alignof(point)));
    counted *c = v.make_never_destroyed<counted>(9);
    CHECK(c->value == 9 && counted::live == 2); // one more (test_make's still "lives")
    errno = 0;
    CHECK(v.try_alloc(16 << 20, 8) == nullptr && errno == ENOMEM); // past the reservation
    CHECK(throws<std::bad_alloc>([&] { (void)v.alloc(16 << 20, 8); }));
    void *last = v.alloc(64, 8);
    CHECK(throws<std::bad_alloc>([&] { (void)v.realloc_last(last, 64, 32 << 20, 8); }));
    std::memset(last, 0, 64); // still valid after the failed resize

    std::size_t before = v.stats().used;
    {
        bumpdown::scope s(v);
        (void)v.alloc(4096);
        CHECK(v.stats().used >= before + 4096);
    }
    CHECK(v.stats().used == before);

    std::size_t peak = v.stats().peak_used;
    v.reset();
    CHECK(v.stats().used == 0 && v.stats().peak_used == peak && peak >= 5000);
    CHECK(v.try_alloc(100, 8) != nullptr);

    bd_vm_options opts{};
    opts.reserve = 4 << 20;
    opts.limit = 1 << 20;
    bumpdown::vm_arena w(opts);
    CHECK(throws<std::bad_alloc>([&] { (void)w.alloc(2 << 20, 8); }) && w.alloc(1000) != nullptr);

    bd_vm_arena *h = w.get();
    bumpdown::vm_arena w2(std::move(w));
    CHECK(w2.get() == h && w.get() == nullptr);
    CHECK(throws<std::bad_alloc>([&] { (void)w.alloc(8); }) && w.stats().reserved == 0);
    bumpdown::vm_arena w3(1 << 20);
    w3 = std::move(w2);
    CHECK(w3.get() == h && w2.get() == nullptr);
    bumpdown::vm_arena w4 = bumpdown::vm_arena::adopt(w3.release());
    CHECK(w4.get() == h && w3.get() == nullptr && w4.alloc(8) != nullptr);

    CHECK(throws<std::bad_alloc>([] { bumpdown::vm_arena absurd(SIZE_MAX); }));
}

} // namespace

int main()
{
    std::printf("bumpdown.hpp consumer, linked against %s\n", CONSUMER_LINKAGE);
    test_arena();
    test_options();
    test_fixed();
    test_make();
    test_reset();
    test_move();
    test_scope();
    test_allocator();
    test_memory_resource();
    test_vm_arena();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
