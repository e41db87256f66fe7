/*
 * service_heap.c
 *	  The device process's allocator of the staging region's heap: blocks
 *	  owned by backends, recorded in the region's table of blocks so that a
 *	  restarted device process keeps what live backends still hold.
 *
 * Only the device process writes the table, under one mutex of its own.
 * An entry is in use once its owner is written, after its offset, size and
 * connection, so an entry the previous device process was writing when it
 * died is either whole or free.  A block belongs to one connection, and
 * goes when that connection ends.  A backend that held blocks of a device
 * process that died stops using them at its next request (the connection
 * is gone, and the query fails); those blocks are freed when it connects
 * again or exits.
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>

#include "service_heap.h"

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * One past the highest entry in use, under heap_lock: every search stops
 * there, so an allocation costs the blocks held, not the table's size.
 */
static int	blocks_hwm = 0;

/* The owner of blocks the calling thread's allocations get (gs_pinned_alloc). */
static __thread pid_t current_owner = 0;
static __thread uint64 current_conn = 0;

/* Whether a backend is gone. */
static bool
owner_is_gone(pid_t owner)
{
	return kill(owner, 0) != 0 && errno == ESRCH;
}

/* Orders blocks by offset, for the search of a gap. */
static int
block_cmp(const void *a, const void *b)
{
	uint64		x = ((const GpuselServiceBlock *) a)->offset;
	uint64		y = ((const GpuselServiceBlock *) b)->offset;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Frees one entry and takes its bytes off the heap's count; under heap_lock. */
static inline void
release_block(GpuselServiceShared *shared, GpuselServiceBlock *b)
{
	pg_atomic_fetch_sub_u64(&shared->heap_in_use, b->bytes);
	b->owner = 0;
}

/* Lowers the high-water mark past free entries at the top; under heap_lock. */
static void
shrink_hwm(GpuselServiceShared *shared)
{
	while (blocks_hwm > 0 && shared->blocks[blocks_hwm - 1].owner == 0)
		blocks_hwm--;
}

/* Frees the entries of backends that exited; under heap_lock. */
static void
reclaim_dead_owners(GpuselServiceShared *shared)
{
	for (int i = 0; i < blocks_hwm; i++)
	{
		GpuselServiceBlock *b = &shared->blocks[i];

		if (b->owner != 0 && owner_is_gone(b->owner))
		{
			release_block(shared, b);
		}
	}
	shrink_hwm(shared);
}

/*
 * At the device process's start: keeps the blocks of backends still
 * alive, frees the rest and entries that do not describe a block.
 */
void
GpuselServiceHeapRecover(void)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	uint64		in_use = 0;

	pthread_mutex_lock(&heap_lock);
	blocks_hwm = 0;
	for (int i = 0; i < GPUSEL_SERVICE_MAX_BLOCKS; i++)
	{
		GpuselServiceBlock *b = &shared->blocks[i];

		if (b->owner == 0)
			continue;
		if (b->offset < shared->heap_offset || b->bytes == 0 ||
			b->offset > shared->region_bytes || b->bytes > shared->region_bytes - b->offset ||
			owner_is_gone(b->owner))
			b->owner = 0;
		else
		{
			in_use += b->bytes;
			blocks_hwm = i + 1;
		}
	}
	pg_atomic_write_u64(&shared->heap_in_use, in_use);
	pthread_mutex_unlock(&heap_lock);
}

/* First fit among the gaps between blocks in use; 0 when none is big enough. */
static uint64
find_gap(GpuselServiceShared *shared, uint64 bytes, GpuselServiceBlock *used)
{
	int			n = 0;
	uint64		at = shared->heap_offset;

	for (int i = 0; i < blocks_hwm; i++)
		if (shared->blocks[i].owner != 0)
			used[n++] = shared->blocks[i];
	qsort(used, n, sizeof(GpuselServiceBlock), block_cmp);
	for (int i = 0; i < n; i++)
	{
		if (used[i].offset >= at && used[i].offset - at >= bytes)
			return at;
		at = Max(at, used[i].offset + used[i].bytes);
	}
	if (at <= shared->region_bytes && shared->region_bytes - at >= bytes)
		return at;
	return 0;
}

/* A block of at least 'bytes' for owner's connection conn, or NULL when the heap is full. */
void *
GpuselServiceHeapAlloc(uint64 bytes, pid_t owner, uint64 conn)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	static GpuselServiceBlock used[GPUSEL_SERVICE_MAX_BLOCKS];	/* under heap_lock */
	uint64		offset;
	int			slot = -1;

	if (bytes == 0 || owner == 0)
		return NULL;
	bytes = TYPEALIGN(GPUSEL_SERVICE_ALIGN, bytes);
	pthread_mutex_lock(&heap_lock);
	offset = find_gap(shared, bytes, used);
	if (offset == 0)
	{
		reclaim_dead_owners(shared);
		offset = find_gap(shared, bytes, used);
	}
	for (int i = 0; offset != 0 && i < GPUSEL_SERVICE_MAX_BLOCKS; i++)
		if (i >= blocks_hwm || shared->blocks[i].owner == 0)
		{
			slot = i;
			break;
		}
	if (offset == 0 || slot < 0)
	{
		pthread_mutex_unlock(&heap_lock);
		return NULL;
	}
	shared->blocks[slot].offset = offset;
	shared->blocks[slot].bytes = bytes;
	shared->blocks[slot].conn = conn;
	pg_write_barrier();
	shared->blocks[slot].owner = owner;
	blocks_hwm = Max(blocks_hwm, slot + 1);
	pg_atomic_fetch_add_u64(&shared->heap_in_use, bytes);
	pthread_mutex_unlock(&heap_lock);
	return (char *) shared + offset;
}

/* Frees connection conn's block at ptr; false when it holds none there. */
bool
GpuselServiceHeapFree(void *ptr, uint64 conn)
{
	GpuselServiceShared *shared = GpuselServiceRegion;
	uint64		offset = (uint64) ((char *) ptr - (char *) shared);
	bool		found = false;

	pthread_mutex_lock(&heap_lock);
	for (int i = 0; i < blocks_hwm; i++)
	{
		GpuselServiceBlock *b = &shared->blocks[i];

		if (b->owner != 0 && b->conn == conn && b->offset == offset)
		{
			release_block(shared, b);
			found = true;
			break;
		}
	}
	shrink_hwm(shared);
	pthread_mutex_unlock(&heap_lock);
	return found;
}

/* Frees every block of connection conn. */
void
GpuselServiceHeapFreeConnection(uint64 conn)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	pthread_mutex_lock(&heap_lock);
	for (int i = 0; i < blocks_hwm; i++)
	{
		GpuselServiceBlock *b = &shared->blocks[i];

		if (b->owner != 0 && b->conn == conn)
		{
			release_block(shared, b);
		}
	}
	shrink_hwm(shared);
	pthread_mutex_unlock(&heap_lock);
}

/*
 * Frees owner's blocks of earlier device processes (generations other than
 * this one's): when the backend connects again, it has given them up.
 */
void
GpuselServiceHeapFreeOrphans(pid_t owner, uint32 generation)
{
	GpuselServiceShared *shared = GpuselServiceRegion;

	pthread_mutex_lock(&heap_lock);
	for (int i = 0; i < blocks_hwm; i++)
	{
		GpuselServiceBlock *b = &shared->blocks[i];

		if (b->owner == owner && (uint32) (b->conn >> 32) != generation)
		{
			release_block(shared, b);
		}
	}
	shrink_hwm(shared);
	pthread_mutex_unlock(&heap_lock);
}

/* Makes the calling thread's allocations through cuda/ belong to a connection. */
void
GpuselServiceHeapSetOwner(pid_t owner, uint64 conn)
{
	current_owner = owner;
	current_conn = conn;
}

/* cuda/'s page-locked allocations in the device process: the thread's connection's blocks. */
void *
GpuselServiceHeapAllocForCuda(size_t bytes)
{
	return GpuselServiceHeapAlloc(bytes, current_owner, current_conn);
}

/* Gives back a block cuda/ allocated for the thread's connection. */
void
GpuselServiceHeapFreeForCuda(void *ptr)
{
	if (ptr != NULL)
		(void) GpuselServiceHeapFree(ptr, current_conn);
}
