-- Reference data: countries used by the shipping calculator.
-- Names follow the ISO 3166 short names, apostrophes escaped.
INSERT INTO countries (code, name, region, ships_to, vat_rate) VALUES
    ('AT', 'Austria', 'EU', TRUE, 0.20),
    ('BE', 'Belgium', 'EU', TRUE, 0.21),
    ('CI', 'Cote d''Ivoire', 'AF', FALSE, 0.18),
    ('DE', 'Germany', 'EU', TRUE, 0.19),
    ('FR', 'France', 'EU', TRUE, 0.20),
    ('GB', 'United Kingdom', 'EU', TRUE, 0.20),
    ('IE', 'Ireland', 'EU', TRUE, 0.23),
    ('KP', 'Korea (Democratic People''s Republic of)', 'AS', FALSE, NULL),
    ('LA', 'Lao People''s Democratic Republic', 'AS', FALSE, 0.10),
    ('NL', 'Netherlands', 'EU', TRUE, 0.21),
    ('NO', 'Norway', 'EU', TRUE, 0.25),
    ('US', 'United States of America', 'NA', TRUE, 0),
    ('CA', 'Canada', 'NA', TRUE, 0.05),
    ('JP', 'Japan', 'AS', TRUE, 0.10);

UPDATE countries SET ships_to = FALSE WHERE vat_rate IS NULL;
