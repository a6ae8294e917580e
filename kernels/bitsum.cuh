/* bitsum.cuh - bit-sliced neighbour counting, 32 cells per 32-bit word.
 *
 * A cell's fate depends on S, the number of live cells in its 3x3x3 box
 * (itself included): a dead cell is born when S is in the birth set, a live
 * one survives when S - 1 is in the survival set.  S is summed in three
 * passes that each add three numbers bit-slice by bit-slice, so every
 * operation below acts on 32 cells at once and compiles to LOP3:
 *   z: a cell and its two z neighbours          -> 0..3  (2 bits)
 *   y: three z-sums from the rows y-1, y, y+1   -> 0..9  (4 bits)
 *   x: three y-sums from the planes x-1, x, x+1 -> 0..27 (5 bits)
 * The z and y sums of a row are shared by the 9 and 3 boxes that use them. */
#ifndef LIFE3D_BITSUM_CUH
#define LIFE3D_BITSUM_CUH

#include <stdint.h>

/* One LOP3: any function of three words, given by its truth table over
 * a = 0xf0, b = 0xcc, c = 0xaa.  Written out so the compiler keeps the
 * adders exactly as designed instead of re-deriving its own cover. */
template <unsigned LUT>
__device__ __forceinline__ uint32_t lop3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t d;
	asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(LUT));
	return d;
}

enum : unsigned {
	XOR3 = 0x96,          /* a ^ b ^ c */
	MAJ3 = 0xe8,          /* at least two of a, b, c */
	XOR2 = 0x3c,          /* a ^ b */
	A_XOR_BC = 0x78,      /* a ^ (b & c) */
	AND3 = 0x80,          /* a & b & c */
	OR2 = 0xfc,           /* a | b */
	AND2 = 0xc0,          /* a & b */
	NOR3 = 0x01,          /* ~a & ~b & ~c */
	A_AND_NB_OR_C = 0xb0, /* a & (~b | c) */
	NA_B_C = 0x08,        /* ~a & b & c */
	NA_AND_B_OR_C = 0x0e  /* ~a & (b | c) */
};

__device__ __forceinline__ uint32_t maj3(uint32_t a, uint32_t b, uint32_t c)
{
	return lop3<MAJ3>(a, b, c);
}

__device__ __forceinline__ uint32_t xor3(uint32_t a, uint32_t b, uint32_t c)
{
	return lop3<XOR3>(a, b, c);
}

/* Sum of three 2-bit numbers (each 0..3) into 4 bits: 7 LOP3. */
__device__ __forceinline__ void add3_2bit(uint32_t a0, uint32_t a1, uint32_t b0,
					  uint32_t b1, uint32_t c0, uint32_t c1,
					  uint32_t y[4])
{
	uint32_t k = maj3(a0, b0, c0);
	uint32_t t = xor3(a1, b1, c1), m = maj3(a1, b1, c1);
	y[0] = xor3(a0, b0, c0);
	y[1] = lop3<XOR2>(t, k, 0);
	y[2] = lop3<A_XOR_BC>(m, t, k);
	y[3] = lop3<AND3>(m, t, k);
}

/* Sum of three 4-bit numbers (each 0..9) into the 5 bits of S (0..27):
 * 15 LOP3.  Weight by weight: three bits and the carries in give one sum
 * bit and the carries out. */
__device__ __forceinline__ void add3_4bit(const uint32_t a[4], const uint32_t b[4],
					  const uint32_t c[4], uint32_t s[5])
{
	uint32_t k1 = maj3(a[0], b[0], c[0]);
	uint32_t t = xor3(a[1], b[1], c[1]), m = maj3(a[1], b[1], c[1]);
	uint32_t n = lop3<AND2>(t, k1, 0);
	uint32_t u = xor3(a[2], b[2], c[2]), p = maj3(a[2], b[2], c[2]);
	uint32_t q = maj3(u, m, n);
	uint32_t v = xor3(a[3], b[3], c[3]), w = maj3(a[3], b[3], c[3]);
	s[0] = xor3(a[0], b[0], c[0]);
	s[1] = lop3<XOR2>(t, k1, 0);
	s[2] = xor3(u, m, n);
	s[3] = xor3(v, p, q);
	/* w and maj(v, p, q) are never both set: S <= 27 < 32. */
	s[4] = lop3<OR2>(w, maj3(v, p, q), 0);
}

/* B6/S567: next = [S == 6] | self & [S in {7, 8}]: 5 LOP3. */
__device__ __forceinline__ uint32_t rule_b6s567(const uint32_t s[5], uint32_t self)
{
	uint32_t six_or_seven = lop3<NA_B_C>(s[3], s[2], lop3<A_AND_NB_OR_C>(s[1], s[0], self));
	uint32_t eight = lop3<AND3>(lop3<NOR3>(s[2], s[1], s[0]), s[3], self);
	return lop3<NA_AND_B_OR_C>(s[4], six_or_seven, eight);
}

/* Golly's smaller neighbourhoods (F, C, E, H: base/hood.h) add their 6, 8 or
 * 12 neighbour words directly with full adders into a count n of 3 or 4
 * bits; the rule then looks at n alone (rule_tree with leaves by n). */
__device__ __forceinline__ void fa(uint32_t a, uint32_t b, uint32_t c, uint32_t &sum,
				   uint32_t &carry)
{
	sum = xor3(a, b, c);
	carry = maj3(a, b, c);
}

/* Six words into n (0..6): 8 LOP3. */
__device__ __forceinline__ void sum6(const uint32_t in[6], uint32_t n[5])
{
	uint32_t s1, c1, s2, c2;
	fa(in[0], in[1], in[2], s1, c1);
	fa(in[3], in[4], in[5], s2, c2);
	n[0] = s1 ^ s2;
	fa(c1, c2, s1 & s2, n[1], n[2]);
	n[3] = n[4] = 0;
}

/* Four words into n (0..4, 3 bits): 6 LOP3. */
__device__ __forceinline__ void sum4(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
				     uint32_t n[3])
{
	uint32_t s, k;
	fa(a, b, c, s, k);
	n[0] = s ^ d;
	uint32_t t = s & d;
	n[1] = k ^ t;
	n[2] = k & t;
}

/* Eight words into n (0..8): 14 LOP3. */
__device__ __forceinline__ void sum8(const uint32_t in[8], uint32_t n[5])
{
	uint32_t s1, c1, s2, c2, s3, c3, t, u;
	fa(in[0], in[1], in[2], s1, c1);
	fa(in[3], in[4], in[5], s2, c2);
	fa(s1, s2, in[6], s3, c3);
	uint32_t k0 = s3 & in[7];
	n[0] = s3 ^ in[7];
	fa(c1, c2, c3, t, u);
	uint32_t k1 = t & k0;
	n[1] = t ^ k0;
	n[2] = u ^ k1;
	n[3] = u & k1;
	n[4] = 0;
}

/* Twelve words into n (0..12): 20 LOP3. */
__device__ __forceinline__ void sum12(const uint32_t in[12], uint32_t n[5])
{
	uint32_t s[4], c[4], t1, d1, t2, f1, t3, f2;
#pragma unroll
	for (int i = 0; i < 4; i++)
		fa(in[3 * i], in[3 * i + 1], in[3 * i + 2], s[i], c[i]);
	fa(s[0], s[1], s[2], t1, d1);
	uint32_t e1 = t1 & s[3];
	n[0] = t1 ^ s[3];
	fa(c[0], c[1], c[2], t2, f1);
	fa(c[3], d1, e1, t3, f2);
	n[1] = t2 ^ t3;
	fa(f1, f2, t2 & t3, n[2], n[3]);
	n[4] = 0;
}

__device__ __forceinline__ uint32_t mux(uint32_t sel, uint32_t one, uint32_t zero)
{
	return (sel & one) | (~sel & zero);
}

/* Any rule: a multiplexer tree over the bits of S whose leaves are the
 * rule's answer for each S (0 or ~0, per cell state). */
__device__ __forceinline__ uint32_t rule_tree(const uint32_t s[5], const uint32_t leaf[32])
{
	uint32_t l1[14], l2[7], l3[4];
#pragma unroll
	for (int i = 0; i < 14; i++)
		l1[i] = mux(s[0], leaf[2 * i + 1], leaf[2 * i]);
#pragma unroll
	for (int i = 0; i < 7; i++)
		l2[i] = mux(s[1], l1[2 * i + 1], l1[2 * i]);
#pragma unroll
	for (int i = 0; i < 3; i++)
		l3[i] = mux(s[2], l2[2 * i + 1], l2[2 * i]);
	l3[3] = ~s[2] & l2[6];              /* S = 28..31 cannot occur */
	return mux(s[4], mux(s[3], l3[3], l3[2]), mux(s[3], l3[1], l3[0]));
}

/* Rules with no live cell for S >= 16 (most of them: B5..7/S4..9 stops
 * at 10): a tree over s0..s3 alone, half the size, and s4 clears it. */
__device__ __forceinline__ uint32_t rule_tree16(const uint32_t s[5], const uint32_t leaf[32])
{
	uint32_t l1[8], l2[4];
#pragma unroll
	for (int i = 0; i < 8; i++)
		l1[i] = mux(s[0], leaf[2 * i + 1], leaf[2 * i]);
#pragma unroll
	for (int i = 0; i < 4; i++)
		l2[i] = mux(s[1], l1[2 * i + 1], l1[2 * i]);
	return mux(s[3], mux(s[2], l2[3], l2[2]), mux(s[2], l2[1], l2[0]));
}

__device__ __forceinline__ uint32_t rule_low(const uint32_t s[5], uint32_t self,
					     const uint32_t leaf_b[32],
					     const uint32_t leaf_s[32])
{
	return mux(self, rule_tree16(s, leaf_s), rule_tree16(s, leaf_b)) & ~s[4];
}

__device__ __forceinline__ uint32_t rule_any(const uint32_t s[5], uint32_t self,
					     const uint32_t leaf_b[32],
					     const uint32_t leaf_s[32])
{
	return mux(self, rule_tree(s, leaf_s), rule_tree(s, leaf_b));
}

#endif
