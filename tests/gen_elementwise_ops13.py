#!/usr/bin/env python3
# Regenerates the NumPy constants pasted into tests/test_elementwise_ops13.c
# (python3 tests/gen_elementwise_ops13.py > constants.txt; numpy 2.4).
# Generates the NumPy 2.4 constants of tests/test_elementwise_ops13.c
import numpy as np, warnings
warnings.simplefilter('ignore')
C = {'bool':'ND_BOOL','int8':'ND_INT8','int16':'ND_INT16','int32':'ND_INT32','int64':'ND_INT64','uint8':'ND_UINT8',
     'uint16':'ND_UINT16','uint32':'ND_UINT32','uint64':'ND_UINT64','float16':'ND_FLOAT16','float32':'ND_FLOAT32','float64':'ND_FLOAT64'}
def fl(x):
    x=float(x)
    if np.isnan(x): return 'NAN'
    if np.isinf(x): return 'INFINITY' if x>0 else '-INFINITY'
    return x.hex() if x != 0 else ('-0.0' if np.signbit(x) else '0.0')
def iv(x, dt):
    x=int(x)
    if dt=='uint64' and x >= 2**63: return '(int64_t)%dULL' % x
    if x == -2**63: return 'INT64_MIN'
    return '%dLL' % x
def vals(arr, dt):
    if np.dtype(dt).kind == 'f': return '{' + ', '.join(fl(v) for v in arr) + '}'
    return '{' + ', '.join(iv(v, dt) for v in arr) + '}'
fcases=[]; icases=[]
def bcase(op, f, a, b, ta, tb=None, tol=0):
    tb = tb or ta
    A=np.array(a, dtype=ta); B=np.array(b, dtype=tb); R=f(A,B)
    rd=str(R.dtype)
    line='    {"%s %s", 1, ND_BINARY_%s, %s, %s, %s, %d, %d, %s, %s, %s},' % (op, ta, op.upper(), C[ta], C[tb], C[rd], len(a), tol,
         vals(A, ta), vals(B, tb), vals(R, rd))
    (fcases if np.dtype(rd).kind=='f' else icases).append(line)
def ucase(op, f, a, ta, tol=0):
    A=np.array(a, dtype=ta); R=f(A); rd=str(R.dtype)
    line='    {"%s %s", 0, ND_UNARY_%s, %s, %s, %s, %d, %d, %s, {0}, %s},' % (op, ta, op.upper(), C[ta], C[ta], C[rd], len(a), tol,
         vals(A, ta), vals(R, rd))
    (fcases if np.dtype(rd).kind=='f' else icases).append(line)
inf=np.inf; nan=np.nan; mx=np.finfo(np.float64).max
bcase('fmod', np.fmod, [-7,7,-7,7,-0.0,5,inf,5.5,-5.5,1e300,-1,0.0], [3,-3,-3,3,1,0,2,inf,2,1e-300,inf,-1], 'float64')
bcase('fmod', np.fmod, [-7,7,-7,7,-0.0,5,-5.5], [3,-3,-3,3,1,0,2], 'float32')
bcase('fmod', np.fmod, [-7,7,-7,7,-128,-128,5,127,0], [3,-3,-3,3,-1,0,0,-128,-5], 'int8')
bcase('fmod', np.fmod, [7,255,0,200], [3,0,5,255], 'uint8')
bcase('fmod', np.fmod, [-2**63,-2**63,2**63-1,-9], [-1,0,-2**63,4], 'int64')
bcase('fmod', np.fmod, [True,False,True], [True,True,False], 'bool')
for t in ('float64','float32'):
    bcase('logaddexp', np.logaddexp, [inf,-inf,inf,-inf,1000,-1000,0,nan,1,1e-30,-50], [inf,-inf,-inf,5,1000,-1000,0,1,nan,-1e-30,3], t, tol=1)
    bcase('logaddexp2', np.logaddexp2, [inf,-inf,inf,-inf,1000,-1000,0,nan,1,1e-30,-50], [inf,-inf,-inf,5,1000,-1000,0,1,nan,-1e-30,3], t, tol=1)
bcase('logaddexp', np.logaddexp, [1,-3], [2,100], 'int8', tol=1)
I8=[-128,-128,-128,127,-6,0,0,100,100,-100,12,-12]; J8=[0,-128,1,-128,4,0,-7,7,3,-3,-18,18]
for t,mn,mxv in (('int8',-128,127),('int16',-32768,32767),('int32',-2**31,2**31-1),('int64',-2**63,2**63-1)):
    a=[mn,mn,mn,mxv,-6,0,0,100,300 if t!='int8' else 100,-100,12,-12,65537*2 if t not in('int8','int16') else 7, mn]
    b=[0,mn,1,mn,4,0,-7,7,301 if t!='int8' else 3,-3,-18,18,65539 if t not in('int8','int16') else 9, -1]
    bcase('gcd', np.gcd, a, b, t); bcase('lcm', np.lcm, a, b, t)
for t,mxv in (('uint8',255),('uint64',2**64-1)):
    a=[0,mxv,100,12,mxv,2**32 if t=='uint64' else 16]; b=[0,mxv-1,7,18,1,2**32+2 if t=='uint64' else 24]
    bcase('gcd', np.gcd, a, b, t); bcase('lcm', np.lcm, a, b, t)

bcase('heaviside', np.heaviside, [-1,-0.0,0,1,nan,inf,-inf,0], [0.5,0.5,0.5,0.5,0.5,0.5,0.5,nan], 'float64')
bcase('heaviside', np.heaviside, [-1,0,1], [0,3,0], 'int8')
tiny=5e-324
for t in ('float64','float32','float16'):
    fi=np.finfo(t); m=float(fi.max); s=float(fi.smallest_subnormal)
    bcase('nextafter', np.nextafter, [0,0,-0.0,0.0,1,1,inf,m,nan,s,-s,-inf,1,-m,2], [1,-1,0.0,-0.0,2,0,0,inf,1,0,0,0,nan,-inf,2], t)
for t in ('float64','float32','float16'):
    fi=np.finfo(t); m=float(fi.max); s=float(fi.smallest_subnormal)
    ucase('spacing', np.spacing, [0,-0.0,1,-1,s,-s,m,-m,inf,-inf,nan,2,-2,1e-30 if t!='float16' else 1e-6, 1.5,-1.5], t)
ucase('spacing', np.spacing, [0, 1, -1, 100], 'int8')
bcase('float_power', np.float_power, [2,-2,0,4,-8], [3,-1,-1,0,2], 'int8')
bcase('float_power', np.float_power, [2,2.5,-1], [0.5,2,0.5], 'float32', tol=1)
bcase('float_power', np.float_power, [2,3], [10,-2], 'float16', tol=1)
bcase('ldexp', np.ldexp, [1,1,-1,tiny,1,0.75,1,-0.0,inf,nan,3,1,1], [1024,-1074,3,1074,-1075,2,1023,5,-3,2,-1,-100000,100000], 'float64','int32')
bcase('ldexp', np.ldexp, [1,1,1,1,1,1.5,1], [15,16,-24,-25,100000,-2,-100000], 'float16','int64')
bcase('ldexp', np.ldexp, [1,2,-3], [3,-1,2], 'int8','int8')
bcase('ldexp', np.ldexp, [1,3], [True,False], 'float32','bool')
bcase('ldexp', np.ldexp, [1,3], [200, 130], 'float32','uint8')
ucase('deg2rad', np.deg2rad, [180,90,-0.0,360,1,inf,nan], 'float64')
ucase('rad2deg', np.rad2deg, [np.pi,1,-0.0,-2,inf], 'float64')
ucase('deg2rad', np.deg2rad, [180,90,-45], 'float32')
ucase('deg2rad', np.deg2rad, [180,-90], 'int16')
ucase('conjugate', np.conjugate, [-128,127,0,5], 'int8')
ucase('conjugate', np.conjugate, [True,False], 'bool')
ucase('conjugate', np.conjugate, [-0.0,nan,inf,1.5], 'float32')
print('/* generated by python3 + numpy %s (float constants as C hex floats) */' % np.__version__)
print('static const ew13_fcase fcases[] = {'); print('\n'.join(fcases)); print('};')
print('static const ew13_icase icases[] = {'); print('\n'.join(icases)); print('};')
# two-output / round / isclose
def arr(name, A):
    dt=str(A.dtype)
    print('static const %s %s[] = %s;' % ('double' if A.dtype.kind=='f' else 'int64_t', name, vals(A.ravel(), dt)))
q,r=np.divmod(np.array([-7,7,-128,5,-128,0],np.int8), np.array([2,-2,-1,0,3,-3],np.int8)); arr('dm_q_i8',q); arr('dm_r_i8',r)
q,r=np.divmod(np.array([-7.5,7.5,1,-0.0,inf,5,-1e-300]), np.array([2,-2,0,3,2,inf,1e300])); arr('dm_q_f64',q); arr('dm_r_f64',r)
x=np.array([-3.0,3.5,-3.5,inf,-inf,nan,-0.0,1e300,0.0,-1e-310]); f,i=np.modf(x); arr('mf_x',x); arr('mf_frac',f); arr('mf_int',i)
x=np.array([-2.5,0.25,-7,65504],np.float16); f,i=np.modf(x); arr('mf_x16',x); arr('mf_frac16',f); arr('mf_int16',i)
fi=np.finfo(np.float64)
x=np.array([0,-0.0,1,-1,0.5,3,inf,-inf,nan,5e-324,fi.max,1e-310,2.0**-1022,0.1,-0.75,2.0**1023]); m,e=np.frexp(x); arr('fx_x',x); arr('fx_m',m); arr('fx_e',e)
x=np.array([1e-45,3.4e38,-0.3,1.1754944e-38, 2.0**-127],np.float32); m,e=np.frexp(x); arr('fx_x32',x); arr('fx_m32',m); arr('fx_e32',e)
x=np.array([6e-8,65504,0.1,-0.0,1e-5],np.float16); m,e=np.frexp(x); arr('fx_x16',x); arr('fx_m16',m); arr('fx_e16',e)
x=np.array([8,-3,0,1000],np.int16); m,e=np.frexp(x); print('/* frexp(int16) ->', m.dtype, e.dtype, '*/'); arr('fx_mi',m); arr('fx_ei',e)
x=np.array([2.5,3.5,-0.5,0.5,1.5,-2.5,-0.0,inf,nan,1e300,0.49999999999999994]); arr('rd_x',x); arr('rd_0',np.round(x,0))
x=np.array([1.25,1.35,2.675,-1.25,0.125, 1e300, 5e-324]); arr('rd_x1',x); arr('rd_1',np.round(x,1)); arr('rd_2',np.round(x,2)); arr('rd_20',np.round(x,20)); arr('rd_400',np.round(x,400))
x=np.array([125.,135.,-125.,1250,-0.0,1e300,15]); arr('rd_xm',x); arr('rd_m1',np.round(x,-1)); arr('rd_m2',np.round(x,-2)); arr('rd_m400',np.round(x,-400))
x=np.array([1250,1350,-1250,-1350,149,-151,32767],np.int16); arr('rd_xi',x); arr('rd_im2',np.round(x,-2)); arr('rd_im1',np.round(x,-1))
x=np.array([250,249,255,5],np.uint8); arr('rd_xu',x); arr('rd_um1',np.round(x,-1))
x=np.array([1.005,2.5,0.125,-1e-3],np.float32); arr('rd_x32',x); arr('rd_32_2',np.round(x,2)); arr('rd_32_0',np.round(x,0))
x=np.array([1.,2.5,1000,0.1],np.float16); arr('rd_x16',x); arr('rd_16_5',np.round(x,5)); arr('rd_16_1',np.round(x,1)); arr('rd_16_m2',np.round(x,-2))
a=np.array([1,1e10,1e-8,inf,inf,-inf,nan,nan,1,0,-0.0,1e-300,5]); b=np.array([1+1e-6,1.00001e10,0,inf,-inf,-inf,nan,1,inf,1e-9,0,-1e-300,5.00006])
arr('ic_a',a); arr('ic_b',b)
arr('ic_def',np.isclose(a,b).astype(np.int64)); arr('ic_nan',np.isclose(a,b,equal_nan=True).astype(np.int64)); arr('ic_r0',np.isclose(a,b,rtol=0,atol=0).astype(np.int64)); arr('ic_big',np.isclose(a,b,rtol=0.1,atol=1).astype(np.int64))
a16=np.array([1.0,1.001,1.002,65504,0],np.float16); b16=np.array([1.0,1.0,1.0,inf,6e-8],np.float16)
arr('ic_a16',a16); arr('ic_b16',b16); arr('ic_16',np.isclose(a16,b16,rtol=1e-3,atol=0).astype(np.int64))
ai=np.array([1,2,-128,127],np.int8); bi=np.array([1,3,-128,126],np.int8); arr('ic_ai',ai); arr('ic_bi',bi); arr('ic_i',np.isclose(ai,bi,rtol=0,atol=0.5).astype(np.int64))
A=np.array([[1.0],[2.0]]); B=np.array([1.0,2.0,1.0+1e-9]); arr('ic_bc',np.isclose(A,B).astype(np.int64))
print('/* allclose:', np.allclose([1,2],[1,2+1e-9]), np.allclose([1,2],[1,2.1]), np.allclose(np.zeros((0,3)), np.zeros(3)), np.allclose([nan],[nan]), np.allclose([nan],[nan],equal_nan=True), '*/')
print('/* array_equal:', np.array_equal([1,2],[1,2,3]), np.array_equal([1,nan],[1,nan]), np.array_equal([1,nan],[1,nan],equal_nan=True), np.array_equal(np.array([1,2],np.int8), np.array([1.0,2.0])), np.array_equal(np.zeros((2,0)),np.zeros((2,0))), np.array_equal(np.zeros((2,0)),np.zeros((0,2))), '*/')
