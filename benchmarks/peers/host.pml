/* A peer of the executable model's host core in Promela, for comparing search rates with SPIN
 * (`benchmarks/exhaustive.py --peer`). Not a second definition of the system: a model of the same
 * dimensions, searched as the exhaustive engine searches a scope.
 *
 * Sizes (spin -D...): TENANTS clients, one per tenant; RUNS runs; REQUESTS requests over all
 * clients, sent one after another (ids are minted in order); INTERRUPTS interrupts per run. A
 * request is a tools/call (tasked or blocking), tasks/get, tasks/update or tasks/cancel naming any
 * run or none; the host receives it (a call creates a run, owned from receipt), answers it (a
 * blocking call once its run has ended), and the answer travels; the connection may drop before the
 * answer arrives, which cancels the run the request still owns. A run starts, may suspend on an
 * interrupt, which a tasks/update of its tenant resolves at most once, and completes, fails, or is
 * cancelled.
 */
#ifndef TENANTS
#define TENANTS 1
#endif
#ifndef RUNS
#define RUNS 1
#endif
#ifndef REQUESTS
#define REQUESTS 2
#endif
#ifndef INTERRUPTS
#define INTERRUPTS 1
#endif

#define NONE 255
/* a run's status */
#define R_NONE 0
#define R_PENDING 1
#define R_RUNNING 2
#define R_WAITING 3
#define R_CANCELLING 4
#define R_COMPLETED 5
#define R_FAILED 6
#define R_CANCELLED 7
#define TERMINAL(s) ((s) >= R_COMPLETED)
/* a request's phase */
#define Q_NONE 0
#define Q_RECEIVED 1
#define Q_ANSWERED 2      /* its answer is in flight */
#define Q_DELIVERED 3
#define Q_DROPPED 4       /* its connection dropped before the answer arrived */
/* methods */
#define M_TASKED 0
#define M_BLOCKING 1
#define M_GET 2
#define M_UPDATE 3
#define M_CANCEL 4

typedef RunRec {
    byte status;
    byte tenant;
    byte owner;           /* the request that owns it, or NONE */
    byte interrupts;      /* raised so far */
    bool open;            /* an interrupt is open */
    byte resolutions;     /* of its open interrupts */
};
typedef RequestRec {
    byte phase;
    byte client;
    byte method;
    byte target;          /* the run it names or created, or NONE */
    byte read;            /* the status a tasks/get answered */
};

RunRec runs[RUNS];
RequestRec reqs[REQUESTS];
byte sent;                /* requests sent so far */
byte made;                /* runs created so far */

proctype Run(byte r) {
end:
    do
    :: atomic { runs[r].status == R_PENDING -> runs[r].status = R_RUNNING }
    :: atomic { runs[r].status == R_RUNNING && runs[r].interrupts < INTERRUPTS ->
                runs[r].interrupts++; runs[r].open = true; runs[r].status = R_WAITING }
    :: atomic { runs[r].status == R_RUNNING -> runs[r].status = R_COMPLETED; runs[r].owner = NONE; break }
    :: atomic { runs[r].status == R_RUNNING -> runs[r].status = R_FAILED; runs[r].owner = NONE; break }
    :: atomic { runs[r].status == R_CANCELLING -> runs[r].status = R_CANCELLED; runs[r].open = false;
                runs[r].owner = NONE; break }
    od
}

proctype Request(byte q) {
    byte c, m, r;
    atomic {
        sent == q;                        /* sent in order: its id is the next one */
        sent++;
        select(c : 0 .. TENANTS - 1);
        select(m : M_TASKED .. M_CANCEL);
        reqs[q].client = c; reqs[q].method = m; reqs[q].target = NONE;
        if
        :: m >= M_GET -> select(r : 0 .. RUNS);
                         if :: r < RUNS && runs[r].status != R_NONE -> reqs[q].target = r :: else -> skip fi
        :: else -> skip
        fi;
        reqs[q].phase = Q_RECEIVED;
        if
        :: m <= M_BLOCKING && made < RUNS ->
            r = made; made++;
            runs[r].status = R_PENDING; runs[r].tenant = c; runs[r].owner = q; reqs[q].target = r;
            run Run(r)
        :: else -> skip
        fi;
        c = 0; m = 0; r = 0
    }
end:
    do
    :: atomic { reqs[q].phase == Q_RECEIVED &&
                (reqs[q].method != M_BLOCKING || reqs[q].target == NONE || TERMINAL(runs[reqs[q].target].status)) ->
        r = reqs[q].target;
        if
        :: r != NONE && runs[r].tenant == reqs[q].client ->
            if
            :: reqs[q].method == M_GET -> reqs[q].read = runs[r].status
            :: reqs[q].method == M_UPDATE && runs[r].open ->
                runs[r].open = false; runs[r].resolutions++;
                if :: runs[r].status == R_WAITING -> runs[r].status = R_RUNNING :: else -> skip fi
            :: reqs[q].method == M_CANCEL && !TERMINAL(runs[r].status) -> runs[r].status = R_CANCELLING
            :: else -> skip
            fi
        :: else -> skip
        fi;
        reqs[q].phase = Q_ANSWERED; r = 0 }
    :: atomic { reqs[q].phase == Q_ANSWERED ->
        reqs[q].phase = Q_DELIVERED;
        if :: reqs[q].target != NONE && runs[reqs[q].target].owner == q -> runs[reqs[q].target].owner = NONE
           :: else -> skip fi;
        break }
    :: atomic { reqs[q].phase == Q_RECEIVED || reqs[q].phase == Q_ANSWERED ->
        if
        :: reqs[q].target != NONE && runs[reqs[q].target].owner == q && !TERMINAL(runs[reqs[q].target].status) ->
            runs[reqs[q].target].status = R_CANCELLING; runs[reqs[q].target].owner = NONE
        :: else -> skip
        fi;
        reqs[q].phase = Q_DROPPED;
        break }
    od;
    /* an interrupt is resolved at most once */
    assert(reqs[q].target == NONE || runs[reqs[q].target].resolutions <= runs[reqs[q].target].interrupts)
}

init {
    byte q;
    atomic {
        for (q : 0 .. REQUESTS - 1) { run Request(q) }
    }
}
