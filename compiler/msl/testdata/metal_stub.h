// metal_stub.h: a SYNTAX AND NAME CHECK for waverig's MSL output, not Metal.
//
// This header lets a stock C++ compiler parse the MSL the compiler/msl package
// emits: `clang++ -std=c++17 -fsyntax-only -Wno-unknown-attributes -include
// metal_stub.h -x c++ out.metal` (with an empty <metal_stdlib> on the include path).
// It holds DECLARATIONS ONLY (no implementations) of exactly the Metal names and
// types the back end prints: the metal namespace, scalar/vector/matrix types,
// address-space and stage keywords (empty macros), simd_/quad_ functions,
// atomics, barriers and textures. Metal attributes such as [[buffer(0)]] are
// unknown to clang and ignored (-Wno-unknown-attributes).
//
// Passing this check means the output is well-formed C++ over these names. It
// does NOT validate Metal semantics (address-space rules, attribute placement,
// what the Metal compiler accepts); only Apple's compiler can do that.
#ifndef WAVERIG_METAL_STUB_H
#define WAVERIG_METAL_STUB_H

// Address spaces and function qualifiers are keywords in Metal; here they vanish.
#define device
#define constant
#define thread
#define threadgroup
#define kernel
#define fragment
#define vertex
#define object_data

#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()

namespace metal {

typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef unsigned char uchar;

// half: a 16-bit float in Metal; here a class that converts to and from float.
struct half {
    half();
    half(float);
    operator float() const;
};

template<typename T, int N> struct vec;

// vec<T, N>: Metal's vector types. Swizzles are declared as static members so
// `v.xyz` is an expression of the right type without implementing anything.
template<typename T, int N>
struct vec {
    T x, y, z, w;
    static vec<T, 2> xx, xy, xz, xw, yx, yy, yz, yw, zx, zy, zz, zw, wx, wy, wz, ww;
    static vec<T, 3> xxx, xxy, xxz, xxw, xyx, xyy, xyz, xyw, xzx, xzy, xzz, xzw, xwx, xwy, xwz, xww;
    static vec<T, 3> yxx, yxy, yxz, yxw, yyx, yyy, yyz, yyw, yzx, yzy, yzz, yzw, ywx, ywy, ywz, yww;
    static vec<T, 3> zxx, zxy, zxz, zxw, zyx, zyy, zyz, zyw, zzx, zzy, zzz, zzw, zwx, zwy, zwz, zww;
    static vec<T, 3> wxx, wxy, wxz, wxw, wyx, wyy, wyz, wyw, wzx, wzy, wzz, wzw, wwx, wwy, wwz, www;
    static vec<T, 4> xxxx, xxxy, xxxz, xxxw, xxyx, xxyy, xxyz, xxyw, xxzx, xxzy, xxzz, xxzw, xxwx, xxwy, xxwz, xxww;
    static vec<T, 4> xyxx, xyxy, xyxz, xyxw, xyyx, xyyy, xyyz, xyyw, xyzx, xyzy, xyzz, xyzw, xywx, xywy, xywz, xyww;
    static vec<T, 4> xzxx, xzxy, xzxz, xzxw, xzyx, xzyy, xzyz, xzyw, xzzx, xzzy, xzzz, xzzw, xzwx, xzwy, xzwz, xzww;
    static vec<T, 4> xwxx, xwxy, xwxz, xwxw, xwyx, xwyy, xwyz, xwyw, xwzx, xwzy, xwzz, xwzw, xwwx, xwwy, xwwz, xwww;
    static vec<T, 4> yxxx, yxxy, yxxz, yxxw, yxyx, yxyy, yxyz, yxyw, yxzx, yxzy, yxzz, yxzw, yxwx, yxwy, yxwz, yxww;
    static vec<T, 4> yyxx, yyxy, yyxz, yyxw, yyyx, yyyy, yyyz, yyyw, yyzx, yyzy, yyzz, yyzw, yywx, yywy, yywz, yyww;
    static vec<T, 4> yzxx, yzxy, yzxz, yzxw, yzyx, yzyy, yzyz, yzyw, yzzx, yzzy, yzzz, yzzw, yzwx, yzwy, yzwz, yzww;
    static vec<T, 4> ywxx, ywxy, ywxz, ywxw, ywyx, ywyy, ywyz, ywyw, ywzx, ywzy, ywzz, ywzw, ywwx, ywwy, ywwz, ywww;
    static vec<T, 4> zxxx, zxxy, zxxz, zxxw, zxyx, zxyy, zxyz, zxyw, zxzx, zxzy, zxzz, zxzw, zxwx, zxwy, zxwz, zxww;
    static vec<T, 4> zyxx, zyxy, zyxz, zyxw, zyyx, zyyy, zyyz, zyyw, zyzx, zyzy, zyzz, zyzw, zywx, zywy, zywz, zyww;
    static vec<T, 4> zzxx, zzxy, zzxz, zzxw, zzyx, zzyy, zzyz, zzyw, zzzx, zzzy, zzzz, zzzw, zzwx, zzwy, zzwz, zzww;
    static vec<T, 4> zwxx, zwxy, zwxz, zwxw, zwyx, zwyy, zwyz, zwyw, zwzx, zwzy, zwzz, zwzw, zwwx, zwwy, zwwz, zwww;
    static vec<T, 4> wxxx, wxxy, wxxz, wxxw, wxyx, wxyy, wxyz, wxyw, wxzx, wxzy, wxzz, wxzw, wxwx, wxwy, wxwz, wxww;
    static vec<T, 4> wyxx, wyxy, wyxz, wyxw, wyyx, wyyy, wyyz, wyyw, wyzx, wyzy, wyzz, wyzw, wywx, wywy, wywz, wyww;
    static vec<T, 4> wzxx, wzxy, wzxz, wzxw, wzyx, wzyy, wzyz, wzyw, wzzx, wzzy, wzzz, wzzw, wzwx, wzwy, wzwz, wzww;
    static vec<T, 4> wwxx, wwxy, wwxz, wwxw, wwyx, wwyy, wwyz, wwyw, wwzx, wwzy, wwzz, wwzw, wwwx, wwwy, wwwz, wwww;
    vec();
    template<typename... A> explicit vec(A... a);
    T& operator[](int i);
    const T& operator[](int i) const;
    friend vec operator+(vec a, vec b);
    friend vec operator-(vec a, vec b);
    friend vec operator*(vec a, vec b);
    friend vec operator/(vec a, vec b);
    friend vec operator%(vec a, vec b);
    friend vec operator&(vec a, vec b);
    friend vec operator|(vec a, vec b);
    friend vec operator^(vec a, vec b);
    friend vec operator<<(vec a, vec b);
    friend vec operator>>(vec a, vec b);
    friend vec operator*(T a, vec b);
    friend vec operator*(vec a, T b);
    friend vec operator/(vec a, T b);
    friend vec operator-(vec a);
    friend vec operator~(vec a);
    friend vec<bool, N> operator!(vec a);
    friend vec<bool, N> operator==(vec a, vec b);
    friend vec<bool, N> operator!=(vec a, vec b);
    friend vec<bool, N> operator<(vec a, vec b);
    friend vec<bool, N> operator<=(vec a, vec b);
    friend vec<bool, N> operator>(vec a, vec b);
    friend vec<bool, N> operator>=(vec a, vec b);
};

// packed_T3: a 12-byte vec3 in buffers, converting to and from vec<T, 3>.
template<typename T>
struct packed_vec3 {
    T x, y, z;
    packed_vec3();
    packed_vec3(vec<T, 3> v);
    operator vec<T, 3>() const;
};

#define WR_VECS(T) typedef vec<T, 2> T##2; typedef vec<T, 3> T##3; typedef vec<T, 4> T##4; typedef packed_vec3<T> packed_##T##3;
WR_VECS(float) WR_VECS(half) WR_VECS(int) WR_VECS(uint) WR_VECS(bool) WR_VECS(ushort) WR_VECS(long) WR_VECS(ulong)
#undef WR_VECS

// matrix<T, C, R>: C columns of R-vectors (Metal's TCxR).
template<typename T, int C, int R>
struct matrix {
    vec<T, R> columns[C];
    matrix();
    template<typename... A> explicit matrix(A... a);
    vec<T, R>& operator[](int i);
    const vec<T, R>& operator[](int i) const;
    friend matrix operator+(matrix a, matrix b);
    friend matrix operator-(matrix a, matrix b);
    friend matrix operator-(matrix a);
    friend matrix operator*(T a, matrix m);
    friend matrix operator*(matrix m, T a);
    friend vec<T, R> operator*(matrix m, vec<T, C> v);
    friend vec<T, C> operator*(vec<T, R> v, matrix m);
};
template<typename T, int K, int C, int R> matrix<T, C, R> operator*(matrix<T, K, R> a, matrix<T, C, K> b);
template<typename T, int C, int R> matrix<T, R, C> transpose(matrix<T, C, R> m);

#define WR_MAT(T, C, R) typedef matrix<T, C, R> T##C##x##R;
#define WR_MATS(T) WR_MAT(T,2,2) WR_MAT(T,2,3) WR_MAT(T,2,4) WR_MAT(T,3,2) WR_MAT(T,3,3) WR_MAT(T,3,4) WR_MAT(T,4,2) WR_MAT(T,4,3) WR_MAT(T,4,4)
WR_MATS(float) WR_MATS(half)
#undef WR_MATS
#undef WR_MAT

// Common, math, integer and relational functions.
template<typename T> T abs(T x);
template<typename T> T min(T x, T y);
template<typename T> T max(T x, T y);
template<typename T> T clamp(T x, T lo, T hi);
template<typename T> T saturate(T x);
template<typename T> T sign(T x);
template<typename T> T floor(T x);
template<typename T> T ceil(T x);
template<typename T> T rint(T x);
template<typename T> T trunc(T x);
template<typename T> T fract(T x);
template<typename T> T sqrt(T x);
template<typename T> T rsqrt(T x);
template<typename T> T exp(T x);
template<typename T> T exp2(T x);
template<typename T> T log(T x);
template<typename T> T log2(T x);
template<typename T> T pow(T x, T y);
template<typename T> T sin(T x);
template<typename T> T cos(T x);
template<typename T> T tan(T x);
template<typename T> T fmod(T x, T y);
template<typename T> T mix(T x, T y, T a);
template<typename T> T fma(T a, T b, T c);
template<typename T> T normalize(T x);
template<typename T, int N> T dot(vec<T, N> a, vec<T, N> b);
template<typename T, int N> T length(vec<T, N> x);
template<typename T> vec<T, 3> cross(vec<T, 3> a, vec<T, 3> b);
template<int N> bool any(vec<bool, N> x);
template<int N> bool all(vec<bool, N> x);
template<typename T> T popcount(T x);
template<typename T> T clz(T x);
template<typename T> T ctz(T x);
template<typename T> T reverse_bits(T x);
template<typename T, typename B> T select(T a, T b, B c);
template<typename T, typename U> T as_type(U x);
template<typename T> T dfdx(T x);
template<typename T> T dfdy(T x);
void discard_fragment();
template<typename T> bool is_function_constant_defined(T x);

// SIMD-group and quad-group functions.
struct simd_vote {
    typedef ulong vote_t;
    explicit operator vote_t() const;
};
simd_vote simd_ballot(bool pred);
bool simd_is_first();
bool simd_is_helper_thread();
bool simd_any(bool pred);
bool quad_any(bool pred);
bool quad_all(bool pred);
bool simd_all(bool pred);
template<typename T> T simd_sum(T x);
template<typename T> T simd_product(T x);
template<typename T> T simd_min(T x);
template<typename T> T simd_max(T x);
template<typename T> T simd_and(T x);
template<typename T> T simd_or(T x);
template<typename T> T simd_xor(T x);
template<typename T> T simd_prefix_exclusive_sum(T x);
template<typename T> T simd_prefix_exclusive_product(T x);
template<typename T> T simd_broadcast_first(T x);
template<typename T> T simd_shuffle(T x, ushort lane);
template<typename T> T quad_shuffle_xor(T x, ushort mask);
template<typename T> T quad_broadcast(T x, ushort lane);

// Atomics and barriers.
struct atomic_uint;
struct atomic_int;
enum memory_order { memory_order_relaxed };
template<typename A, typename V> V atomic_fetch_add_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_fetch_and_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_fetch_or_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_fetch_xor_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_fetch_min_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_fetch_max_explicit(A* object, V operand, memory_order order);
template<typename A, typename V> V atomic_exchange_explicit(A* object, V desired, memory_order order);
template<typename A, typename V> bool atomic_compare_exchange_weak_explicit(A* object, V* expected, V desired, memory_order success, memory_order failure);
enum class mem_flags { mem_none, mem_device, mem_threadgroup, mem_texture };
mem_flags operator|(mem_flags a, mem_flags b);
void threadgroup_barrier(mem_flags flags);

// Textures and samplers.
struct sampler {};
struct level { explicit level(float lod); };
enum class access { sample, read, write, read_write };
template<typename T, access A = access::sample>
struct texture2d {
    vec<T, 4> sample(sampler s, float2 coord) const;
    vec<T, 4> sample(sampler s, float2 coord, level lod) const;
    vec<T, 4> read(uint2 coord, uint lod = 0) const;
    void write(vec<T, 4> value, uint2 coord) const;
    uint get_width(uint lod = 0) const;
    uint get_height(uint lod = 0) const;
};

// Metal 3 object and mesh functions: the object function's grid, and the mesh
// function's output object. set_primitive exists only when the primitive type is
// not void, so a mesh<V, void, …> that sets primitives fails the check.
struct mesh_grid_properties {
    void set_threadgroups_per_grid(uint3 threadgroups);
};
enum class topology { point, line, triangle };
template<typename P> struct mesh_primitive_setter {
    void set_primitive(uint index, P primitive);
};
template<> struct mesh_primitive_setter<void> {};
template<typename V, typename P, uint NV, uint NP, topology T>
struct mesh : mesh_primitive_setter<P> {
    void set_vertex(uint index, V vertex);
    void set_index(uint index, uchar value);
    void set_primitive_count(uint count);
};

} // namespace metal

#endif
