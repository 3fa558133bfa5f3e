-- Least privilege for keys: a non-admin key without a site list used to reach every site.
-- From now on such a key reaches only the sites it created (an admin grants "*" explicitly),
-- so existing keys keep exactly the sites they registered themselves.
UPDATE `api_keys` SET `sites` = (
  SELECT json_group_array(`sites`.`id`) FROM `sites` WHERE `sites`.`created_by_key` = `api_keys`.`id`
)
WHERE `sites` IS NULL AND NOT EXISTS (SELECT 1 FROM json_each(`api_keys`.`scopes`) WHERE `value` = 'admin');
