// SPDX-License-Identifier: MIT
/* One interval's features phase (feature.h, obs_features_tick): the features in their order. */
#include "features/feature.h"

int obs_features_tick(struct obs_feature *fs, size_t n, struct obs_tick *tk, int *errs)
{
	struct obs_feature *f;
	size_t i;

	for (i = 0; i < n; i++) {
		f = &fs[i];
		errs[i] = tk->final && f->finish ? f->finish(f->self, tk) : f->tick(f->self, tk);
		if (errs[i] && i == 0)
			return errs[i];
	}
	return 0;
}
