# SPDX-License-Identifier: GPL-2.0-only
"""'vgemini run': a job's id and credentials (ptag, cookie, cgroup), its
communication domain on every node (kgni-job configure/release), local
agents for --local, and the command that ties them to the PMI server.
"""

import fcntl
import json
import os
import secrets
import select
import signal
import struct
import subprocess
import sys
import time

from .common import (DEFAULT_CONNECT_TIMEOUT, EXIT_FAIL, EXIT_NO_AGENT,
                     EXIT_USAGE, REPO, _raise_interrupt, Failure, file_define,
                     header_define, Interrupted, parallel, warn)
from .agent import (HOW_EXITED, MAX_REQUESTS as AGENT_MAX_REQUESTS,
                    T_HELLO, T_HELLO_ACK, VERSION, VERSION_LIMITS,
                    AgentError, describe)
from .fabric import Fabric
from .procs import proc_alive, proc_starttime
from .pmi import agent_conn, Job, JobConn, PMIConsts
from . import shares as host_shares


# The user ptag range of uGNI (spec/ugni-api.md section 5), from gni_pub.h.
GNI_PUB_H = os.path.join(REPO, "lib", "ugni", "gni_pub.h")
PTAG_USER_START = file_define(GNI_PUB_H, "GNI_PTAG_USER_START")
PTAG_USER_END = file_define(GNI_PUB_H, "GNI_PTAG_USER_END")

RUN_CONNECT_TIMEOUT = 60.0


def parse_cookie(s):
    try:
        v = int(s, 0)
    except ValueError:
        v = -1
    if not 1 <= v <= 0xffffffff:
        raise Failure(f"bad --cookie '{s}': want a 32-bit value, e.g. "
                      "0x12340000", EXIT_USAGE)
    return v


def next_job_id(fab):
    """A job id unique in the fabric's life (a counter in the run
    directory)."""
    path = os.path.join(fab.rundir, "jobs.seq")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            last = int(os.pread(fd, 32, 0).decode() or "0")
        except ValueError:
            last = 0
        jid = last + 1
        data = f"{jid}\n".encode()
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        return jid
    finally:
        os.close(fd)


def job_credentials(jobid, ptag=None, cookie=None):
    """(ptag, cookie) of a job: given, or ptag derived from its id so that
    the jobs of a fabric differ (user range), and cookie =
    GNI_JOB_CREATE_COOKIE(pkey, 0) with a pkey of 0x100..0xffff drawn at
    random: nobody can tell a job's cookie from its id.  Knowing the pair
    is not enough to attach anyway: kgni also checks the rank's user and
    cgroup (job_cgroup())."""
    if ptag is None:
        ptag = PTAG_USER_START + (jobid - 1) % (PTAG_USER_END -
                                                PTAG_USER_START + 1)
    if cookie is None:
        pkey = 0x100 + secrets.randbelow(0xff00)
        cookie = pkey << 16
    return ptag, cookie


# A root launcher runs the ranks of job J as user and group
# RANK_UID_BASE + J (mod RANK_UID_SPAN): never root, and no two live jobs
# alike, so that one job's ranks cannot signal, trace or read /proc of
# another's (Documentation/security.rst).
RANK_UID_BASE = 100000
RANK_UID_SPAN = 100000


def rank_ids(jobid):
    """(uid, gid) that the job's ranks run as: the caller's, or the job's
    own when the caller is root."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    u = RANK_UID_BASE + jobid % RANK_UID_SPAN
    return u, u


def _ptags_lock(fab):
    fd = os.open(os.path.join(fab.rundir, "ptags.lock"),
                 os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _live_ptags(fab):
    """{"ptag": {"job", "pid", "start"}} of the fabric's jobs whose
    'vgemini run' still lives (RUN/ptags.json; lock held)."""
    try:
        with open(os.path.join(fab.rundir, "ptags.json")) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(rec, dict):
        return {}
    return {p: e for p, e in rec.items() if isinstance(e, dict) and
            proc_alive(e.get("pid"), e.get("start"))}


def _write_ptags(fab, rec):
    path = os.path.join(fab.rundir, "ptags.json")
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(rec, f)
    os.replace(tmp, path)


def claim_ptag(fab, jobid, ptag=None, avoid=()):
    """A ptag of the user range that no live job of the fabric holds, for
    job @jobid: @ptag if given (Failure if a live job holds it), else the
    first free one from the job's id on, not in @avoid.  Two jobs with one
    ptag could reach each other's memory on any node (the NIC checks the
    ptag of every packet, not the cookie)."""
    span = PTAG_USER_END - PTAG_USER_START + 1
    fd = _ptags_lock(fab)
    try:
        rec = _live_ptags(fab)
        if ptag is not None:
            if str(ptag) in rec:
                raise Failure(f"--ptag {ptag}: job {rec[str(ptag)]['job']} "
                              "of this fabric holds it", EXIT_FAIL)
        else:
            for k in range(span):
                p = PTAG_USER_START + (jobid - 1 + k) % span
                if str(p) not in rec and p not in avoid:
                    ptag = p
                    break
            else:
                raise Failure(f"all {span} user ptags are held by live "
                              "jobs", EXIT_FAIL)
        me = os.getpid()
        rec[str(ptag)] = {"job": jobid, "pid": me,
                          "start": proc_starttime(me)}
        _write_ptags(fab, rec)
        return ptag
    finally:
        os.close(fd)


def release_ptags(fab, jobid):
    """Give back the ptags that job @jobid claimed."""
    fd = _ptags_lock(fab)
    try:
        rec = _live_ptags(fab)
        _write_ptags(fab, {p: e for p, e in rec.items()
                           if e.get("job") != jobid})
    finally:
        os.close(fd)


def job_cgroup(jobid):
    """The cgroup (under the guest's /sys/fs/cgroup) that a job's ranks run
    in on every node: kgni lets only its members attach to the job's
    domains."""
    return f"vgemini-job-{jobid}"


def alt_credentials(fab, jobid, ptag, cookie):
    """--alt-domain: a second (ptag, cookie) for the job, distinct from its
    own in both halves, for tests of the isolation between domains.  It
    takes a job id of its own (so that it differs from the domains of the
    fabric's other jobs as theirs differ from each other), moved on when
    an explicit --ptag or --cookie collides with it."""
    alt_id = next_job_id(fab) if fab is not None else jobid + 1
    aptag, acookie = job_credentials(alt_id)
    span = PTAG_USER_END - PTAG_USER_START + 1
    while aptag == ptag:
        aptag = PTAG_USER_START + (aptag - PTAG_USER_START + 1) % span
    if fab is not None:
        aptag = claim_ptag(fab, jobid, None, (ptag,))
    while acookie == cookie:
        acookie = (acookie + (1 << 16)) & 0xffffffff or 1 << 16
    return aptag, acookie


JOB_TOOL = "kgni-job"           # guest/kgni-job.c, in the image
JOB_TOOL_TIMEOUT = 10.0


def job_tool(fab, nodes, verb, ptag, cookie, connect_timeout, cgroup,
             uid=None):
    """Run 'kgni-job VERB PTAG COOKIE CGROUP [UID]' on every node (as
    root, through the agent), in parallel.  {node: None when it
    succeeded, else why not}."""
    argv = [JOB_TOOL, verb, str(ptag), str(cookie), cgroup]
    if uid is not None:
        argv.append(str(uid))

    def one(n):
        msg = []
        try:
            with fab.agent(n, connect_timeout) as a:
                how, val = a.run(argv, timeout=JOB_TOOL_TIMEOUT,
                                 on_stdout=msg.append, on_stderr=msg.append)
        except AgentError as e:
            return n, str(e)
        if how == HOW_EXITED and val == 0:
            return n, None
        text = b"".join(msg).decode(errors="replace").strip()
        return n, f"{describe(how, val)}" + (f": {text}" if text else "")
    return dict(parallel(one, nodes))


def configure_job_domain(fab, nodes, jobid, ptag, cookie,
                         connect_timeout=DEFAULT_CONNECT_TIMEOUT, uid=0):
    """Set up the job's communication domain on every node before any rank
    starts, as ALPS does with GNI_ConfigureJob: 'kgni-job configure PTAG
    COOKIE' (KGNI_IOC_JOB_CONFIGURE, which needs root: the agent runs as
    root) on each node, so that the ranks can attach a CDM with the
    (PMI_GNI_PTAG, PMI_GNI_COOKIE) of their environment, when they run as
    @uid and in the job's cgroup.  On failure, undo it on the nodes where
    it succeeded and fail the job."""
    res = job_tool(fab, nodes, "configure", ptag, cookie, connect_timeout,
                   job_cgroup(jobid), uid)
    failed = {n: e for n, e in res.items() if e is not None}
    if failed:
        done = [n for n in nodes if n not in failed]
        if done:
            release_job_domain(fab, done, jobid, ptag, cookie,
                               connect_timeout)
        n = min(failed)
        raise Failure(f"job {jobid}: cannot configure its domain (ptag "
                      f"{ptag}, cookie {cookie:#x}) on node {n}: "
                      f"{JOB_TOOL} configure: {failed[n]}", EXIT_FAIL)


def release_job_domain(fab, nodes, jobid, ptag, cookie,
                       connect_timeout=DEFAULT_CONNECT_TIMEOUT):
    """The counterpart of configure_job_domain(), run after every rank has
    ended (or been killed): 'kgni-job release PTAG COOKIE' on each node.
    A failure is only warned about: the job's status stands."""
    try:
        res = job_tool(fab, nodes, "release", ptag, cookie, connect_timeout,
                       job_cgroup(jobid))
    except Exception as e:      # not to hide the job's own status
        warn(f"job {jobid}: releasing its domain: {e}")
        return
    for n in sorted(res):
        if res[n] is not None:
            warn(f"job {jobid}: node {n}: {JOB_TOOL} release: {res[n]}")


def local_agent_path():
    p = os.environ.get("VGEMINI_AGENT") or os.path.join(
        REPO, "build", "lib", "tests", "vgemini-agent")
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        raise Failure(f"local agent {p} not found (make lib, or set "
                      "VGEMINI_AGENT)")
    return p


def local_conns(nnodes):
    """--local: one vgemini-agent per pretend node, on a pseudo-terminal
    in raw mode, run on the host.  {node: JobConn}, with the agents."""
    import tty
    agent = local_agent_path()
    conns = {}
    try:
        for n in range(nnodes):
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            proc = subprocess.Popen([agent, os.ttyname(slave)],
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL)

            def recv(fd=master):
                return os.read(fd, 1 << 17)

            def send(buf, fd=master):
                return os.write(fd, buf)

            def close(c, fds=(master, slave), p=proc):
                for fd in fds:
                    os.close(fd)
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            conn = JobConn(n, master, recv, send, close=close)
            conn.proc = proc
            conns[n] = conn
            # The agent's first words: HELLO_ACK to our HELLO.
            conn.frame(T_HELLO, 0, struct.pack("<I", VERSION))
            end = time.monotonic() + 10
            acked = False
            while not acked:
                if time.monotonic() > end or proc.poll() is not None:
                    raise Failure(f"local agent {n} does not answer")
                if conn.outbuf:
                    conn.flush()
                select.select([master], [], [], 0.1)
                conn.fill()
                for typ, rid, p in conn.frames():
                    if typ == T_HELLO_ACK and len(p) >= 12 and \
                            struct.unpack_from("<I", p)[0] >= 2:
                        acked = True
                if conn.dead:
                    raise Failure(f"local agent {n}: {conn.dead}")
    except BaseException:
        for conn in conns.values():
            conn.close()
        raise
    return conns


def cmd_run(args):
    argv = args.cmd
    cookie = check_run_args(args)
    out, err = sys.stdout.buffer, sys.stderr.buffer
    nnodes = (args.n + args.ppn - 1) // args.ppn
    nic_bits = header_define("gemini_hw.h", "GEMINI_NIC_ID_BITS")
    fab, nodes, jobid = job_placement(args, nnodes)
    if fab is not None:
        try:
            return _run_job(args, argv, cookie, out, err, nnodes, nic_bits,
                            fab, nodes, jobid,
                            claim_ptag(fab, jobid, args.ptag))
        finally:
            release_ptags(fab, jobid)
    return _run_job(args, argv, cookie, out, err, nnodes, nic_bits, fab,
                    nodes, jobid, args.ptag)


def _run_job(args, argv, cookie, out, err, nnodes, nic_bits, fab, nodes,
             jobid, ptag):
    ptag, cookie = job_credentials(jobid, ptag, cookie)
    uid, gid = rank_ids(jobid)
    alt = None
    if args.alt_domain:
        alt = alt_credentials(fab, jobid, ptag, cookie)
    kvsname = f"kvs_{jobid}"
    env = {}
    if not args.local:
        # Every rank starts inside the job's cgroup (Documentation/jobs.rst).
        host = host_shares.host_program(fab.topology().get("shares", []),
                                        argv[0], os.getcwd())
        where = []
        if host:
            # Built on the host: in the host's file tree, where "vgemini
            # run" was called, with its environment, as aprun starts ranks.
            argv = [host[0]] + list(argv[1:])
            where = ["--host", host[1]]
            env = host_env()
        argv = [JOB_TOOL, "run", job_cgroup(jobid), f"{uid}:{gid}"] + \
            where + ["--"] + list(argv)
    job = Job(args.n, args.ppn, argv, env, kvsname, args.timeout, out, err)

    def rank_env(rank):
        local = job.clique(rank)
        return {
            "PMI_RANK": rank.r, "PMI_SIZE": args.n, "PMI_JOBID": jobid,
            "PMI_LOCAL_RANK": local.index(rank.r),
            "PMI_LOCAL_SIZE": len(local),
            "ALPS_APP_PE": rank.r, "ALPS_APP_ID": jobid,
            "PMI_GNI_DEV_ID": 0,
            "PMI_GNI_LOC_ADDR": rank.node << nic_bits,
            "PMI_GNI_PTAG": ptag, "PMI_GNI_COOKIE": cookie,
            # libpmi never forks (Cray's did unless told not to).
            "PMI_NO_FORK": 1,
            # Ranks per node, for libalpsutil's placement (lib/alps/).
            "VGEMINI_PPN": args.ppn,
            **({"VGEMINI_ALT_PTAG": alt[0], "VGEMINI_ALT_COOKIE": alt[1]}
               if alt else {}),
        }

    old = {s: signal.signal(s, _raise_interrupt)
           for s in (signal.SIGTERM, signal.SIGHUP)}
    conns = {}
    configured = False
    alt_configured = False
    try:
        if args.local:
            conns = local_conns(nnodes)
        else:
            connect_agents(fab, nodes, args.ppn, args.connect_timeout, conns)
            configure_job_domain(fab, nodes, jobid, ptag, cookie,
                                 args.connect_timeout, uid)
            configured = True
            if alt:
                configure_job_domain(fab, nodes, jobid, *alt,
                                     args.connect_timeout, uid)
                alt_configured = True
        job.place(conns)
        job.start(rank_env)
        if args.verbose:
            warn(f"job {jobid}: {args.n} rank{'s' if args.n > 1 else ''} "
                 f"on {nnodes} node{'s' if nnodes > 1 else ''} "
                 f"({args.ppn} per node), ptag {ptag}, cookie {cookie:#x}, "
                 f"kvs {kvsname}" + (f"; alternate domain: ptag {alt[0]}, "
                                     f"cookie {alt[1]:#x}" if alt else ""))
        if args.local:
            job.loop(alive=lambda c: c.proc.poll() is None)
        else:
            job.loop(alive=lambda c: fab.alive(c.node))
        return job.exit_status()
    except (KeyboardInterrupt, Interrupted):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for s in old:
            signal.signal(s, signal.SIG_IGN)
        warn("interrupted: killing the ranks")
        if job.ranks:
            job.fail(None)
            job.kill_deadline = time.monotonic() + 3.0
            try:
                job.loop()
            except Exception:
                pass
        return 130
    finally:
        job.close()
        for conn in conns.values():
            if conn not in job.conns:
                conn.close()
        if alt_configured:
            release_job_domain(fab, nodes, jobid, *alt,
                               args.connect_timeout)
        if configured:
            release_job_domain(fab, nodes, jobid, ptag, cookie,
                               args.connect_timeout)
        for s, h in old.items():
            signal.signal(s, h)


# The caller's variables that describe its own session, not the job's
HOST_ENV_SKIP = ("PMI_", "ALPS_", "VGEMINI_", "SSH_", "DISPLAY", "TERM",
                 "XAUTHORITY", "DBUS_", "XDG_", "SHLVL", "OLDPWD", "_")
# vgemini's variables that the ranks' libraries read: passed on
HOST_ENV_KEEP = ("VGEMINI_IDLE_POLLS", "VGEMINI_UDREG_WATCH")


def host_env():
    """The environment of a rank of a program built on the host: the
    caller's, and vgemini's libraries on the library path (a Cray node has
    Cray's own in its loader's path)."""
    env = {k: v for k, v in os.environ.items()
           if (k in HOST_ENV_KEEP or not k.startswith(HOST_ENV_SKIP))
           and "\0" not in k + v}
    libdir = os.path.join(REPO, "build", "lib")
    old = env.get("LD_LIBRARY_PATH")
    env["LD_LIBRARY_PATH"] = libdir + (":" + old if old else "")
    env["PWD"] = os.getcwd()
    return env


def check_run_args(args):
    """Check the job's size, --ppn, --ptag and --cookie (a Failure with
    EXIT_USAGE); the cookie, None when not given."""
    argv = args.cmd
    if not argv:
        raise Failure("no program given (vgemini run -n N PROG ARGS...)",
                      EXIT_USAGE)
    if args.n < 1:
        raise Failure(f"bad -n {args.n}: a job has at least 1 rank",
                      EXIT_USAGE)
    top = PMIConsts.get().MAX_RANKS
    if args.n > top:
        raise Failure(f"bad -n {args.n}: at most {top} ranks", EXIT_USAGE)
    most = AGENT_MAX_REQUESTS
    if not 1 <= args.ppn <= most:
        raise Failure(f"bad --ppn {args.ppn}: 1 to {most} (the agent's "
                      "limit of commands at once)", EXIT_USAGE)
    if args.ptag is not None and not \
            PTAG_USER_START <= args.ptag <= PTAG_USER_END:
        raise Failure(f"bad --ptag {args.ptag}: user ptags are "
                      f"{PTAG_USER_START}..{PTAG_USER_END}", EXIT_USAGE)
    cookie = parse_cookie(args.cookie) if args.cookie is not None else None
    return cookie


def job_placement(args, nnodes):
    """(fabric or None with --local, the job's nodes, the job id)."""
    if args.local:
        fab = None
        nodes = list(range(nnodes))
        jobid = os.getpid()
    else:
        fab = Fabric(args.fabric)
        topo = fab.topology()
        total = len(topo["nodes"])
        if args.n > total * args.ppn:
            raise Failure(f"bad -n {args.n}: the fabric has {total} node"
                          f"{'s' if total > 1 else ''} x {args.ppn} rank"
                          f"{'s' if args.ppn > 1 else ''} per node "
                          f"(--ppn) = {total * args.ppn} slots", EXIT_USAGE)
        nodes = list(range(nnodes))
        for n in nodes:
            if not fab.alive(n):
                raise Failure(f"node {n} is down (QEMU not running)",
                              EXIT_NO_AGENT)
        jobid = next_job_id(fab)
    return fab, nodes, jobid


def connect_agents(fab, nodes, ppn, connect_timeout, conns):
    """Connect to the agent of every node of the job, in parallel: conns
    {node: JobConn} gets those that answered (the caller closes them);
    Failure when a node's agent does not answer or cannot run ppn ranks
    at once."""
    def connect(n):
        a = fab.agent(n, connect_timeout)
        if a.version < VERSION_LIMITS or a.max_requests < ppn:
            a.close()
            raise AgentError(
                "the guest's agent is too old for jobs (rebuild "
                "the image)" if a.version < VERSION_LIMITS else
                f"its agent runs at most {a.max_requests} commands "
                f"at once (--ppn {ppn})")
        return a

    def one(n):
        try:
            return n, connect(n), None
        except AgentError as e:
            return n, None, str(e)
    failed = {}
    for n, a, e in parallel(one, nodes):
        if a is not None:
            conns[n] = agent_conn(fab, n, a)
        else:
            failed[n] = e
    if failed:
        n = min(failed)
        raise Failure(f"node {n}: {failed[n]}", EXIT_NO_AGENT)
