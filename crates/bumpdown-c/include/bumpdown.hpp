/*
 * bumpdown.hpp - a header-only C++17 layer over bumpdown.h, in namespace `bumpdown`.
 *
 *     bumpdown::arena arena;                                   // growable, on malloc
 *     point *p = arena.make<point>(1, 2);                      // constructed in the arena
 *     std::vector<int, bumpdown::arena_allocator<int>> v(arena);
 *     bumpdown::memory_resource mr(arena);
 *     std::pmr::vector<std::pmr::string> names(&mr);
 *     {
 *         bumpdown::scope tmp(arena);                          // checkpoint
 *         void *scratch = arena.alloc(1 << 20, 64);
 *     }                                                        // rewound: scratch is gone
 *     arena.reset();                                           // everything is gone
 *
 * What the C++ layer adds to the C API, and nothing more:
 *   - ownership: `arena` and `vm_arena` destroy their handle (move-only);
 *   - errors: an allocation that fails throws std::bad_alloc instead of returning NULL
 *     (errno is still set by the C function: ENOMEM when memory, the limit or a fixed
 *     buffer ran out, EINVAL for bad input such as an alignment that is not a power of
 *     two); `try_alloc` keeps the C behaviour. Built with -fno-exceptions, a failure
 *     calls std::abort() instead of throwing;
 *   - `scope`, `arena_allocator<T>` and `memory_resource`: a checkpoint tied to a C++
 *     scope, and the two standard ways for containers to allocate from an arena.
 *
 * An arena never runs destructors: memory comes back all at once (reset, a scope's
 * rewind, destruction of the arena) and nothing is told. `make<T>` therefore only accepts
 * trivially destructible types; `make_never_destroyed<T>` takes any type for callers who
 * know that skipping the destructor is harmless (e.g. a container whose memory is in the
 * same arena). Containers are different: they destroy their own elements, and an arena
 * allocator only makes their deallocations no-ops.
 *
 * Nothing here is thread-safe, as an arena is not: one thread at a time per arena.
 * Every object that refers to an arena (scope, arena_allocator, memory_resource, and
 * whatever they allocated) must be gone, or unused, before the arena is destroyed. They
 * hold the C handle, not the C++ object, so moving an `arena` does not invalidate them.
 *
 * Link with the library as for bumpdown.h (CMake: bumpdown::bumpdown or
 * bumpdown::bumpdown_static; pkg-config: bumpdown). Needs C++17 for std::pmr.
 */
#ifndef BUMPDOWN_HPP
#define BUMPDOWN_HPP

#ifndef __cplusplus
#error "bumpdown.hpp is C++17; from C, include bumpdown.h"
#elif defined(_MSVC_LANG)
#if _MSVC_LANG < 201703L
#error "bumpdown.hpp needs C++17 (std::pmr); bumpdown.h alone works from C++11"
#endif
#elif __cplusplus < 201703L
#error "bumpdown.hpp needs C++17 (std::pmr); bumpdown.h alone works from C++11"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory_resource>
#include <new>
#include <type_traits>
#include <utility>

#include "bumpdown.h"

namespace bumpdown {

namespace detail {

#if defined(__GNUC__) || defined(__clang__)
#define BUMPDOWN_COLD_ __attribute__((cold, noinline))
#define BUMPDOWN_INLINE_ __attribute__((always_inline))
#else
#define BUMPDOWN_COLD_
#define BUMPDOWN_INLINE_
#endif

/// Out of line and cold, so that an inlined alloc() stays the C fast path plus one
/// predictable branch.
[[noreturn]] BUMPDOWN_COLD_ inline void throw_bad_alloc()
{
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
    throw std::bad_alloc();
#else
    std::abort();
#endif
}

/// std::bad_array_new_length rather than a plain bad_alloc, because that is what the
/// standard asks of an allocator given a count whose byte size overflows.
[[noreturn]] BUMPDOWN_COLD_ inline void throw_bad_array_new_length()
{
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
    throw std::bad_array_new_length();
#else
    std::abort();
#endif
}

/// Turns the C API's NULL into the exception C++ code expects, in one place.
template <class P> inline P *checked(P *p)
{
    if (p == nullptr)
        throw_bad_alloc();
    return p;
}

/// Braces as a fallback, so that make<T>(1, 2) works on aggregates, which C++17 cannot
/// initialize with parentheses.
template <class T, class... Args> inline T *construct_at(void *p, Args &&...args)
{
    static_assert(!std::is_array_v<T>, "allocate arrays with alloc() or a container");
    if constexpr (std::is_constructible_v<T, Args &&...>)
        return ::new (p) T(std::forward<Args>(args)...);
    else
        return ::new (p) T{std::forward<Args>(args)...};
}

/// The C functions that differ between the two handle types, so that basic_owner can be
/// written once for both. alloc is forced inline, as bd_alloc is, because gcc inlines a
/// wrapper of that size late, no longer sees that a failure ends in the cold throw, and
/// leaves the failure path in the hot code.
template <class Handle> struct owner_traits;

template <> struct owner_traits<bd_arena> {
    BUMPDOWN_INLINE_ static void *alloc(bd_arena *h, std::size_t size, std::size_t align)
    {
        return bd_alloc(h, size, align);
    }
    static void destroy(bd_arena *h) noexcept { bd_arena_destroy(h); }
};

template <> struct owner_traits<bd_vm_arena> {
    BUMPDOWN_INLINE_ static void *alloc(bd_vm_arena *h, std::size_t size, std::size_t align)
    {
        return bd_vm_alloc(h, size, align);
    }
    static void destroy(bd_vm_arena *h) noexcept { bd_vm_destroy(h); }
};

#undef BUMPDOWN_COLD_
#undef BUMPDOWN_INLINE_

/// What `arena` and `vm_arena` share (owning the handle, allocating, constructing), written
/// once so that the two cannot drift apart. `Derived` is the owner class, which adopt()
/// returns; an owner derives from it publicly, so that member pointers such as &arena::get
/// (and std::invoke with them) work on an arena.
template <class Derived, class Handle> class basic_owner {
    using traits = owner_traits<Handle>;

public:
    /// Takes over a handle created by C code, so that an arena can cross between C and
    /// C++ parts of a program (NULL gives an empty arena, as after a move).
    static Derived adopt(Handle *handle) noexcept { return Derived(handle, adopt_tag()); }

    /// Moves the handle, because two owners would destroy it twice; the source is left
    /// empty (get() is NULL, alloc() throws).
    basic_owner(basic_owner &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

    /// Destroys the current arena first, because this object can own only one.
    basic_owner &operator=(basic_owner &&other) noexcept
    {
        if (this != &other) {
            traits::destroy(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }

    /// Not copyable, because an arena's memory cannot be duplicated behind its pointers.
    basic_owner(const basic_owner &) = delete;
    basic_owner &operator=(const basic_owner &) = delete;

    /// Frees every allocation at once (a vm_arena gives back its whole reservation), which
    /// is the point of an arena; no destructor runs for what was constructed in it.
    ~basic_owner() { traits::destroy(handle_); }

    /// Raw memory, for callers that manage object lifetimes themselves; throws
    /// std::bad_alloc where the C function (bd_alloc, bd_vm_alloc) would return NULL.
    [[nodiscard]] void *alloc(std::size_t size, std::size_t align = alignof(std::max_align_t))
    {
        void *p = traits::alloc(handle_, size, align);
        if (p == nullptr)
            detail::throw_bad_alloc();
        return p;
    }

    /// The C behaviour (NULL and errno), for callers that treat running out as an
    /// expected outcome rather than an exception.
    [[nodiscard]] void *try_alloc(std::size_t size, std::size_t align = alignof(std::max_align_t)) noexcept
    {
        return traits::alloc(handle_, size, align);
    }

    /// A T constructed in the arena; restricted to trivially destructible types because
    /// the arena will never run T's destructor. If the constructor throws, the exception
    /// propagates and the memory stays used until the arena is reset or rewound.
    template <class T, class... Args> [[nodiscard]] T *make(Args &&...args)
    {
        static_assert(std::is_trivially_destructible_v<T>,
                      "an arena never runs destructors: use make_never_destroyed<T> if "
                      "skipping ~T() is harmless");
        return make_never_destroyed<T>(std::forward<Args>(args)...);
    }

    /// make<T> for any type, for callers who have checked that never running ~T() is
    /// harmless (e.g. a pmr container whose memory lives in this same arena).
    template <class T, class... Args> [[nodiscard]] T *make_never_destroyed(Args &&...args)
    {
        return detail::construct_at<T>(alloc(sizeof(T), alignof(T)), std::forward<Args>(args)...);
    }

    /// The C handle, for the inline bd_* functions (a cursor in a hot loop) and for C
    /// code; this object still owns it.
    Handle *get() const noexcept { return handle_; }

    /// Gives up ownership, so that C code can take the arena over (and destroy it).
    [[nodiscard]] Handle *release() noexcept { return std::exchange(handle_, nullptr); }

protected:
    /// A tag rather than a plain Handle* parameter, because the owners inherit this
    /// constructor (for adopt()) and a pointer overload would make vm_arena(0) ambiguous.
    struct adopt_tag {};

    /// Stores a handle as given: from adopt(), or from an owner's constructor that has
    /// just created and checked it.
    basic_owner(Handle *handle, adopt_tag) noexcept : handle_(handle) {}

private:
    Handle *handle_;
};

} // namespace detail

/// Owns a bd_arena, so that the arena and everything allocated from it are freed when
/// the owner goes away, exceptions included.
///
/// Besides what is declared here, it has the members it shares with vm_arena, documented
/// in detail::basic_owner above: move construction and assignment (no copies), the
/// destructor, adopt(), alloc(), try_alloc(), make<T>(), make_never_destroyed<T>(),
/// get() and release().
class arena : public detail::basic_owner<arena, bd_arena> {
    using base = detail::basic_owner<arena, bd_arena>;
    using base::base; // the tagged constructor, which adopt() needs (still protected)

public:
    /// A growable arena with default options; it allocates nothing until first used, so
    /// constructing one is cheap.
    arena() : base(detail::checked(bd_arena_create()), adopt_tag()) {}

    /// For when the defaults do not fit: a first chunk allocated up front, a smaller or
    /// larger chunk-size cap, or a limit on the memory held.
    explicit arena(const bd_options &opts)
        : base(detail::checked(bd_arena_create_with(&opts)), adopt_tag()) {}

    /// Over the caller's buffer, for code that must never call malloc; the buffer must
    /// outlive the arena, and a full buffer makes alloc() throw.
    arena(void *buf, std::size_t len)
        : base(detail::checked(bd_arena_create_fixed(buf, len)), adopt_tag()) {}

    /// Frees everything at once while keeping the regular chunks, so that the next round
    /// of allocations takes no malloc and no new page faults.
    void reset() noexcept { bd_reset(get()); }

    /// reset() that keeps at most `retain` bytes of chunks, so that one peak does not
    /// pin its memory forever.
    void reset(std::size_t retain) noexcept { bd_reset_with_limit(get(), retain); }

    /// The arena's memory use, for tests and tuning; all zeros for an empty arena.
    bd_stats stats() const noexcept
    {
        bd_stats s{};
        bd_arena_stats(get(), &s);
        return s;
    }
};

/// Owns a bd_vm_arena, for workloads that want one contiguous range that never moves and
/// whose newest block can grow in place, which chunks cannot offer.
///
/// Its ownership and allocation members are arena's, from detail::basic_owner (see
/// arena); what is declared here is what only a virtual-memory arena has.
class vm_arena : public detail::basic_owner<vm_arena, bd_vm_arena> {
    using base = detail::basic_owner<vm_arena, bd_vm_arena>;
    using base::base; // the tagged constructor, which adopt() needs (still protected)

public:
    /// Reserves `reserve` bytes of address space; reserve generously, since address
    /// space costs nothing until used.
    explicit vm_arena(std::size_t reserve) : base(detail::checked(bd_vm_create(reserve)), adopt_tag()) {}

    /// For a commit batch, a limit, huge pages or releasing pages on reset.
    explicit vm_arena(const bd_vm_options &opts)
        : base(detail::checked(bd_vm_create_with(&opts)), adopt_tag()) {}

    /// Resizes `p` (the newest block: in place, no copy), which is why this arena exists;
    /// throws std::bad_alloc on failure, leaving `p` valid.
    [[nodiscard]] void *realloc_last(void *p, std::size_t old_size, std::size_t new_size,
                       std::size_t align = alignof(std::max_align_t))
    {
        return detail::checked(bd_vm_realloc_last(get(), p, old_size, new_size, align));
    }

    /// Frees everything in O(1), keeping (or releasing, per the options) the pages, so
    /// the next pass is a plain bump.
    void reset() noexcept { bd_vm_reset(get()); }

    /// Reserved, committed, used and peak bytes, for tests and tuning; zeros when empty.
    bd_vm_stats stats() const noexcept
    {
        bd_vm_stats s{};
        bd_vm_arena_stats(get(), &s);
        return s;
    }
};

// Checked here because the owners get their move-only rules from basic_owner, where a
// change (or a destructor declared in an owner, which silently removes its move
// operations) would otherwise go unseen until a user's code stopped compiling.
static_assert(std::is_nothrow_move_constructible_v<arena> && std::is_nothrow_move_assignable_v<arena>
              && !std::is_copy_constructible_v<arena> && !std::is_copy_assignable_v<arena>);
static_assert(std::is_nothrow_move_constructible_v<vm_arena> && std::is_nothrow_move_assignable_v<vm_arena>
              && !std::is_copy_constructible_v<vm_arena> && !std::is_copy_assignable_v<vm_arena>);

/// Rewinds an arena when a C++ scope ends, so that temporary allocations (per request,
/// per loop iteration) do not pile up, even when an exception leaves the scope early.
///
/// Scopes nest. If the arena is reset inside the scope, or rewound past it by an outer
/// scope, the checkpoint is stale and the rewind is refused (the arena stays as it is).
class scope {
public:
    /// Saves the arena's position now, because everything allocated after this point is
    /// what the scope frees.
    explicit scope(arena &a) noexcept : arena_(a.get()) { bd_checkpoint_save(arena_, &cp_); }

    /// The same for a virtual-memory arena, whose checkpoints work alike.
    explicit scope(vm_arena &a) noexcept : vm_(a.get()) { bd_vm_checkpoint_save(vm_, &cp_); }

    /// A scope is tied to one place on the stack; copies would rewind twice.
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;

    /// Rewinds, without touching errno, since a destructor cannot report and may run
    /// while an error is being handled.
    ~scope()
    {
        const int saved = errno;
        rewind();
        errno = saved;
    }

    /// Frees what was allocated since the scope began, now, so that a loop can reuse the
    /// same memory every iteration; false if the checkpoint was stale (the arena is
    /// untouched).
    bool rewind() noexcept
    {
        if (arena_ != nullptr)
            return bd_rewind(arena_, &cp_) == BD_OK;
        if (vm_ != nullptr)
            return bd_vm_rewind(vm_, &cp_) == BD_OK;
        return false;
    }

private:
    bd_arena *arena_ = nullptr;
    bd_vm_arena *vm_ = nullptr;
    bd_checkpoint cp_{};
};

/// A standard allocator on an arena, so that std::vector, std::map, std::basic_string
/// and friends can keep their memory in it.
///
/// deallocate() does nothing: the C API frees only everything at once (reset, rewind,
/// destroy), so a growing vector leaves its old buffers behind until then. Two
/// allocators are equal when they use the same arena. Like std::pmr's allocator, it stays
/// with its container (no propagation on copy, move or swap): a container's memory always
/// comes from the arena it was built with, so do not swap containers of different arenas.
template <class T> class arena_allocator {
public:
    using value_type = T;
    using propagate_on_container_copy_assignment = std::false_type;
    using propagate_on_container_move_assignment = std::false_type;
    using propagate_on_container_swap = std::false_type;
    using is_always_equal = std::false_type;

    /// Implicit, so that a container can be built straight from an arena:
    /// std::vector<int, arena_allocator<int>> v(arena).
    arena_allocator(arena &a) noexcept : handle_(a.get()) {}

    /// On a C handle, for arenas owned by C code.
    explicit arena_allocator(bd_arena *handle) noexcept : handle_(handle) {}

    /// The rebinding copy, which containers need to allocate nodes rather than values.
    template <class U> arena_allocator(const arena_allocator<U> &other) noexcept : handle_(other.get()) {}

    /// Memory for `n` T's, throwing as the standard requires (std::bad_array_new_length
    /// for an overflowing count, std::bad_alloc when the arena is out of memory).
    [[nodiscard]] T *allocate(std::size_t n)
    {
        if (n > max_size())
            detail::throw_bad_array_new_length();
        void *p = bd_alloc(handle_, n * sizeof(T), alignof(T));
        if (p == nullptr)
            detail::throw_bad_alloc();
        return static_cast<T *>(p);
    }

    /// A no-op, because an arena frees memory only all at once.
    void deallocate(T *, std::size_t) noexcept {}

    /// The largest count whose byte size the C API accepts (it refuses sizes past
    /// PTRDIFF_MAX), so that containers fail early with length_error.
    std::size_t max_size() const noexcept
    {
        return static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);
    }

    /// The arena's handle, which is what equality compares.
    bd_arena *get() const noexcept { return handle_; }

private:
    bd_arena *handle_;
};

/// Equal allocators can free each other's memory; for arenas, that means the same arena.
template <class T, class U>
inline bool operator==(const arena_allocator<T> &a, const arena_allocator<U> &b) noexcept
{
    return a.get() == b.get();
}

/// Spelled out because C++17 does not derive != from ==.
template <class T, class U>
inline bool operator!=(const arena_allocator<T> &a, const arena_allocator<U> &b) noexcept
{
    return a.get() != b.get();
}

/// A std::pmr::memory_resource over an arena, so that pmr containers and code written
/// against std::pmr::polymorphic_allocator can use an arena without being templates on
/// the allocator. Deallocation is a no-op, as for arena_allocator.
class memory_resource final : public std::pmr::memory_resource {
public:
    /// Refers to the arena (it must outlive every container using this resource) rather
    /// than owning it, so that one arena can serve several resources and allocators.
    explicit memory_resource(arena &a) noexcept : handle_(a.get()) {}

    /// On a C handle, for arenas owned by C code.
    explicit memory_resource(bd_arena *handle) noexcept : handle_(handle) {}

    /// Copyable, because a copy refers to the same arena and compares equal; neither
    /// owns anything.
    memory_resource(const memory_resource &) = default;
    memory_resource &operator=(const memory_resource &) = default;

    /// The arena's handle, which is what is_equal() compares.
    bd_arena *get() const noexcept { return handle_; }

private:
    /// The bump, throwing std::bad_alloc as the pmr contract requires.
    void *do_allocate(std::size_t bytes, std::size_t alignment) override
    {
        void *p = bd_alloc(handle_, bytes, alignment);
        if (p == nullptr)
            detail::throw_bad_alloc();
        return p;
    }

    /// A no-op, because an arena frees memory only all at once.
    void do_deallocate(void *, std::size_t, std::size_t) override {}

    /// Resources over the same arena can free each other's memory (which is nothing), so
    /// pmr containers on them may swap and move buffers.
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override
    {
        if (this == &other)
            return true;
#if defined(__cpp_rtti) || defined(__GXX_RTTI) || defined(_CPPRTTI)
        const auto *o = dynamic_cast<const memory_resource *>(&other);
        return o != nullptr && o->handle_ == handle_;
#else
        return false;
#endif
    }

    bd_arena *handle_;
};

} // namespace bumpdown

#endif /* BUMPDOWN_HPP */
