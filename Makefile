# gpusel: PostgreSQL extension that runs WHERE filtering and percentile
# selection on an NVIDIA GPU, with an exact CPU path for everything.
#
#   make                     build gpusel.so (CUDA kernels when nvcc is found)
#   make WITH_CUDA=0         CPU-only build with the same SQL interface
#   make CUDA_ARCHS="90"     choose the GPU architectures (PTX for the last is kept)
#   make install             install into the PostgreSQL given by PG_CONFIG
#   make check-all           everything: see test/run_all.sh
#   make dist                dist/gpusel-VERSION.zip of the committed tree

EXTENSION = gpusel
# the control file alone names the version; its install script is built
EXTVERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(EXTENSION).control)
ifeq ($(EXTVERSION),)
$(error no default_version in $(EXTENSION).control)
endif
MODULE_big = gpusel
# upgrade scripts only: sql/gpusel.sql is the one source of the current objects
DATA = $(wildcard sql/$(EXTENSION)--*--*.sql)
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
PGFILEDESC = "gpusel - GPU filtering and percentile selection"

OBJS = \
	src/gpusel.o \
	src/guc.o \
	src/device_calls.o \
	src/device.o \
	src/service/service_region.o \
	src/service/service_heap.o \
	src/service/service_device.o \
	src/service/service_resident.o \
	src/service/service_worker.o \
	src/service/service_client.o \
	src/service/service_calls.o \
	src/service/service_sql.o \
	src/cache/cache_registry.o \
	src/cache/cache_build.o \
	src/cache/cache_read.o \
	src/cache/cache_dict.o \
	src/cache/cache_refresh.o \
	src/cache/cache_device.o \
	src/cache/cache_source.o \
	src/cache/cache_sql.o \
	src/types/column_form.o \
	src/types/form_numeric.o \
	src/types/form_numeric_wide.o \
	src/types/form_short_char.o \
	src/types/form_date.o \
	src/types/value_dict.o \
	src/types/form_text_dict.o \
	src/types/form_uuid.o \
	src/types/order_keys.o \
	src/types/kept_values.o \
	src/percentile/keystore.o \
	src/percentile/radix_select.o \
	src/percentile/inplace_select.o \
	src/percentile/key_select.o \
	src/percentile/percentile.o \
	src/percentile/percentile_builtins.o \
	src/scan/qual_emit.o \
	src/scan/qual_compile.o \
	src/scan/qual_datetime.o \
	src/scan/qual_numeric.o \
	src/scan/qual_numeric_compile.o \
	src/scan/qual_numeric_wide.o \
	src/scan/filter_sql.o \
	src/scan/scan_plan.o \
	src/scan/scan_exec.o \
	src/scan/scan_batches.o \
	src/scan/scan_source.o \
	src/scan/scan_source_tableam.o \
	src/scan/scan_pages.o \
	src/scan/scan_explain.o \
	src/scan/column_filter.o \
	src/scan/scan_parallel.o \
	src/scan/parallel_feed.o \
	src/groupagg/groupagg_aggs.o \
	src/groupagg/groupagg_aggtable.o \
	src/groupagg/groupagg_plan.o \
	src/groupagg/groupagg_estimate.o \
	src/groupagg/groupagg_exec.o \
	src/groupagg/groupagg_rows.o \
	src/groupagg/groupagg_results.o \
	src/groupagg/groupagg_order.o \
	src/groupagg/groupagg_scan.o \
	src/groupagg/groupagg_partial.o \
	src/groupagg/groupagg_device.o \
	src/groupagg/groupagg_batch.o \
	src/groupagg/groupagg_devsum.o \
	src/groupagg/groupagg_narrow.o \
	src/groupagg/groupagg_native.o \
	src/groupagg/groupagg_numeric.o \
	src/groupagg/groupagg_bigkeys.o \
	src/groupagg/groupagg_spill.o \
	src/shard/shard_aggs.o \
	src/shard/shard_deparse.o \
	src/shard/shard_link.o \
	src/shard/shard_rounds.o \
	src/shard/shard_search.o \
	src/shard/shard_exec.o \
	src/shard/shard_plan.o

REGRESS = percentile_basic percentile_diff percentile_scan percentile_builtins device scan_basic scan_diff scan_security scan_regressions scan_datetime scan_numeric scan_numeric_aggs scan_numeric_keys scan_numeric_wide scan_enable_gucs groupagg groupagg_values groupagg_shapes groupagg_filters groupagg_block_paths groupagg_errors groupagg_sizes groupagg_rescan groupagg_mvcc groupagg_device groupagg_text groupagg_interval groupagg_privileges groupagg_limit groupagg_order groupagg_estimate groupagg_spill groupagg_select parallel parallel_shapes parallel_partials parallel_dict_keys cache cache_build cache_text cache_percentile_passes cache_percentile_rounds cache_percentile_rounds_groups cache_random_shapes cache_refresh tpch upgrade
REGRESS_OPTS = --inputdir=test --load-extension=gpusel
# isolation tests need gpusel in shared_preload_libraries (test/run_all.sh runs them so)
ISOLATION = cache_writers
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=gpusel
# the upgrade suite starts from old versions' full scripts, which are not shipped
REGRESS_PREP = install-test-fixtures

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
ifeq ($(origin WITH_CUDA), undefined)
WITH_CUDA := $(if $(wildcard $(NVCC)),1,0)
endif
CUDA_ARCHS ?= 80 86 89 90
CUDA_LAST_ARCH := $(lastword $(CUDA_ARCHS))
CUDA_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
	-gencode=arch=compute_$(CUDA_LAST_ARCH),code=compute_$(CUDA_LAST_ARCH)
NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden $(CUDA_GENCODE)

# CUDA objects are linked through SHLIB_LINK, not OBJS: PGXS would want an
# LLVM bitcode file for every member of OBJS.
ifeq ($(WITH_CUDA),1)
CUDA_OBJS = cuda/device.o cuda/device_pool.o cuda/sampleselect.o cuda/filter_verify.o cuda/filter_launch.o \
	cuda/filter_slots.o cuda/filter_testhooks.o cuda/groupsort.o cuda/groupbatch.o cuda/groupsum.o cuda/batchsum.o
SHLIB_LINK += $(CUDA_OBJS) -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
else
CUDA_OBJS = cuda/nocuda.o cuda/nocuda_filter.o
SHLIB_LINK += $(CUDA_OBJS) -lpthread
endif

PG_CPPFLAGS = -I$(srcdir)/cuda -I$(srcdir)/src -I$(srcdir)/src/types -I$(srcdir)/src/percentile -I$(srcdir)/src/scan \
	-I$(srcdir)/src/groupagg -I$(srcdir)/src/service -I$(srcdir)/src/cache -I$(srcdir)/src/shard \
	-I$(shell $(PG_CONFIG) --includedir)
# the sharded plan reaches foreign partitions through postgres_fdw's libpq connections
SHLIB_LINK_INTERNAL += -lpq
EXTRA_CLEAN = cuda/*.o test/kernel/bin test/unit/bin

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(shlib): $(CUDA_OBJS)

# after the include: a rule above it would become the default goal
$(DATA_built): sql/$(EXTENSION).sql
	cp $< $@

# test/fixtures: old versions' install scripts for the upgrade suite, beside
# the installed ones (test/run_all.sh does the same where no make can run)
.PHONY: install-test-fixtures
install-test-fixtures:
	$(INSTALL_DATA) $(wildcard test/fixtures/$(EXTENSION)--*.sql) '$(DESTDIR)$(datadir)/extension/'

# PGXS tracks no header dependencies: a changed header rebuilds every object
$(OBJS): $(wildcard src/*.h src/*/*.h) $(wildcard cuda/*.h)

# static pattern rules: the objects are explicit targets, never intermediate
$(filter-out cuda/nocuda%,$(CUDA_OBJS)): cuda/%.o: cuda/%.cu cuda/*.h $(wildcard cuda/*.cuh)
	$(NVCC) $(NVCCFLAGS) -I$(srcdir)/cuda -c $< -o $@

$(filter cuda/nocuda%,$(CUDA_OBJS)): cuda/%.o: cuda/%.c cuda/*.h
	$(CC) $(CFLAGS) $(CFLAGS_SL) -I$(srcdir)/cuda -c $< -o $@

.PHONY: check-all
check-all:
	bash test/run_all.sh

# a source archive of HEAD, the version's install script built from it;
# META.json's two versions must be the control file's (1.1 as 1.1.0)
.PHONY: dist
dist:
	@test "$$(grep -c '"version": "$(EXTVERSION)\(\.0\)*"' META.json)" = 2 || \
		{ echo "META.json's versions are not $(EXTVERSION)"; exit 1; }
	mkdir -p dist
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/ --output dist/$(EXTENSION)-$(EXTVERSION).zip HEAD

# the CPU's column loops (tests, keys, sums) are written to be vectorised
src/scan/column_filter.o src/types/order_keys.o src/groupagg/groupagg_aggtable.o \
	src/groupagg/groupagg_narrow.o: CFLAGS += -O3
