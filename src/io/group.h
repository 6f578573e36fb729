/* Write groups (storage.h): the part storage.c's write needs. */
#ifndef HUDI_IO_GROUP_H
#define HUDI_IO_GROUP_H

#include "io/storage.h"

/* The write group this thread has open on s, when s's backend defers
 * (has sync); else NULL. */
hudi_storage_group *hudi_storage_group_of_(const hudi_storage *s);

/* Room for one more pending path, taken before the write so that a write
 * that succeeded is always recorded (threads that joined the group write
 * at the same time: the slots are counted under the group's lock). */
HUDI_NODISCARD hudi_status hudi_storage_group_reserve_(hudi_storage_group *g, hudi_error *err);

/* Gives back a slot of hudi_storage_group_reserve_ after a failed write. */
void hudi_storage_group_unreserve_(hudi_storage_group *g);

/* Records a grouped write of the normalised path (ownership passes to g);
 * after hudi_storage_group_reserve_. */
void hudi_storage_group_add_(hudi_storage_group *g, char *path);

#endif
